//! Typed errors for everything that reaches the core from outside: a stable `code` for programs,
//! the offending `field` when there is one, and a message written for the developer who sent it.

use std::fmt;

/// Stable error codes; the JS wrapper exposes them unchanged as `LoopGuardError.code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidConfig,
    InvalidRecord,
    TooDeep,
    TooLarge,
    InvalidSnapshot,
}

impl ErrorCode {
    /// Every code the core gives.
    pub const ALL: [ErrorCode; 5] = [
        ErrorCode::InvalidConfig,
        ErrorCode::InvalidRecord,
        ErrorCode::TooDeep,
        ErrorCode::TooLarge,
        ErrorCode::InvalidSnapshot,
    ];

    /// The code's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidConfig => "invalid_config",
            ErrorCode::InvalidRecord => "invalid_record",
            ErrorCode::TooDeep => "too_deep",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::InvalidSnapshot => "invalid_snapshot",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardError {
    pub code: ErrorCode,
    pub field: Option<String>,
    pub message: String,
}

impl GuardError {
    pub fn new(code: ErrorCode, field: Option<&str>, message: impl Into<String>) -> Self {
        GuardError {
            code,
            field: field.map(str::to_owned),
            message: message.into(),
        }
    }

    pub fn config(field: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidConfig, Some(field), message)
    }

    pub fn record(field: Option<&str>, message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRecord, field, message)
    }
}

impl fmt::Display for GuardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code.as_str())
    }
}

impl std::error::Error for GuardError {}

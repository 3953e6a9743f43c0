//! Typed errors for everything that reaches the core from outside: a stable `code` for programs,
//! the offending `field` when there is one, and a message written for the developer who sent it.

use std::fmt;

/// Stable error codes; the JS wrapper exposes them unchanged as `LoopGuardError.code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// An unknown key, a wrong type or value, misordered thresholds in the config.
    InvalidConfig,
    /// A record that is not an object, lacks a `tool`, has a wrong field type or an unknown field.
    InvalidRecord,
    /// A value nested deeper than the core reads.
    TooDeep,
    /// A serialised record over `maxRecordBytes`.
    TooLarge,
    /// Snapshot bytes that are corrupt, truncated or of another format version.
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

/// Why the guard refused its input; the guard itself is unchanged and keeps answering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardError {
    /// What kind of input was wrong.
    pub code: ErrorCode,
    /// The offending field (`args`, `tools.exec.cap`, …) when there is one.
    pub field: Option<String>,
    /// What is wrong, for the developer who sent it.
    pub message: String,
}

impl GuardError {
    pub(crate) fn new(code: ErrorCode, field: Option<&str>, message: impl Into<String>) -> Self {
        GuardError {
            code,
            field: field.map(str::to_owned),
            message: message.into(),
        }
    }

    pub(crate) fn config(field: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidConfig, Some(field), message)
    }

    pub(crate) fn record(field: Option<&str>, message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRecord, field, message)
    }
}

impl fmt::Display for GuardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code.as_str())
    }
}

impl std::error::Error for GuardError {}

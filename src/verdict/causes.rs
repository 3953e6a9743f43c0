//! The causes of failure a finding can name: ones that do not depend on the tool, so that many
//! tools fail for one of them (`record::failure_class` reads them from failures).

/// A cause of failure that does not depend on the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedCause {
    /// 401, "unauthorized", an invalid or expired key or token.
    Unauthorized,
    /// 403, "forbidden", "permission denied", `EACCES`, `EPERM`.
    Forbidden,
    /// "no space left on device", `ENOSPC`, a quota exceeded.
    DiskFull,
    /// `ECONNREFUSED`, "connection refused".
    ConnectionRefused,
    /// `ENOTFOUND`, "could not resolve host".
    UnknownHost,
}

impl SharedCause {
    /// Every cause, in code order.
    pub const ALL: [SharedCause; 5] = [
        SharedCause::Unauthorized,
        SharedCause::Forbidden,
        SharedCause::DiskFull,
        SharedCause::ConnectionRefused,
        SharedCause::UnknownHost,
    ];

    /// The cause's code (snapshots, the run's warned set).
    pub fn code(self) -> u8 {
        match self {
            SharedCause::Unauthorized => 1,
            SharedCause::Forbidden => 2,
            SharedCause::DiskFull => 3,
            SharedCause::ConnectionRefused => 4,
            SharedCause::UnknownHost => 5,
        }
    }

    pub fn from_code(code: u8) -> Option<SharedCause> {
        SharedCause::ALL.into_iter().find(|c| c.code() == code)
    }
}

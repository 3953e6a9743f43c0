//! Volatile result keys: members that change on every call without meaning progress (durations,
//! pids, timestamps, request and trace ids, …). They are dropped at any depth before an outcome is
//! hashed; `volatileKeys` in the config adds to the built-in list.

use crate::json::canonical::KeyFilter;

/// Keys dropped (at any depth) from results and errors before hashing: they change on every call
/// without meaning progress.
pub const DEFAULT_VOLATILE_KEYS: &[&str] = &[
    "durationMs",
    "duration",
    "elapsedMs",
    "tookMs",
    "pid",
    "startedAt",
    "endedAt",
    "createdAt",
    "updatedAt",
    "sentAt",
    "deliveredAt",
    "timestamp",
    "ts",
    "requestId",
    "traceId",
    "spanId",
    "messageId",
    "message_id",
    "receipt",
    "idempotencyKey",
    "runId",
    "sessionId",
    "cwd",
];

#[derive(Debug, Clone, Default)]
pub struct VolatileKeys {
    extra: Vec<String>,
}

impl VolatileKeys {
    pub fn with_extra(extra: Vec<String>) -> Self {
        VolatileKeys { extra }
    }
}

impl KeyFilter for VolatileKeys {
    fn drops(&self, key: &str) -> bool {
        DEFAULT_VOLATILE_KEYS.contains(&key) || self.extra.iter().any(|k| k == key)
    }
}

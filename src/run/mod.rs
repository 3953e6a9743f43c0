//! Run state: the table of live runs, each run's bounded window of fingerprinted records and its
//! tool-name table, the lookup keys that find a run or a pending call again, and the versioned
//! snapshots that move a run between processes.

pub(crate) mod history;
pub(crate) mod keys;
pub(crate) mod snapshot;
pub(crate) mod snapshot_bytes;
pub(crate) mod table;
pub(crate) mod tool_table;

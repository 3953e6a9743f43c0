//! Run state: the table of live runs (`table`); each run's bounded window of fingerprinted call
//! records, its counters and tool-name table (`state`, `tool_table`); its records counted by
//! call, outcome and tool (`call_counts`, over `key_table`), and indexed: linked to the previous record of
//! their call, with the stretches of refusals and the newest change (`window_index`, `call_chain`,
//! `refusal_stretches`); what its calls may have
//! changed and the shared causes their failures named (`record_notes`); the argument members of
//! each read tool's last call (`last_arguments`); calls in an outage (`outages`); the call ids
//! `sameAs` names (`call_ids`); a record and its packed metadata (`call_record`, `record_meta`);
//! the streaks a settled record counts (`streaks`); and the versioned snapshots that move a run
//! between processes (`snapshot`, `snapshot_bytes`).

pub(crate) mod call_chain;
pub(crate) mod call_counts;
pub(crate) mod call_ids;
pub(crate) mod call_record;
pub(crate) mod key_table;
pub(crate) mod last_arguments;
pub(crate) mod outages;
pub(crate) mod record_meta;
pub(crate) mod record_notes;
pub(crate) mod refusal_stretches;
pub(crate) mod snapshot;
pub(crate) mod snapshot_bytes;
pub(crate) mod state;
pub(crate) mod streaks;
pub(crate) mod table;
pub(crate) mod tool_table;
pub(crate) mod window_index;

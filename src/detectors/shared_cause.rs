//! `shared_cause`: several tools failing for one cause that does not depend on the tool
//! (credentials, permissions, a full disk, a refused connection, an unknown host:
//! `record::failure_class`), counted per tool so an agent cannot try every tool in turn unnoticed.
//! When the newest results of `warningThreshold` different tools in the window are failures with
//! one such cause, a record warns once per cause (until host-reported progress) naming it. No
//! refusal: a call that already failed so is `generic_repeat`'s, with a repeat's evidence.

use crate::config::Config;
use crate::run::state::Run;
use crate::verdict::{DetectorId, Finding, Level, SharedCause};

/// The warning for a record that just failed with `cause`, if it is due; marks the cause warned.
pub fn at_record(run: &mut Run, cause: SharedCause, config: &Config) -> Option<Finding> {
    let bit = 1u8 << cause.code();
    if !config.detectors.on(DetectorId::SharedCause) || run.warned_causes & bit != 0 {
        return None;
    }
    let records = run.records().get(run.first_counted()..).unwrap_or_default();
    let first = run.first_counted();
    let mut tools_seen: Vec<u16> = Vec::new();
    let mut failed_so = 0u32;
    for (i, record) in records.iter().enumerate().rev() {
        if record.outcome().is_none() || tools_seen.contains(&record.tool()) {
            continue;
        }
        tools_seen.push(record.tool());
        let noted = run.notes.cause(run.seq_of(first + i)) == Some(cause);
        failed_so += u32::from(record.is_error() && noted);
    }
    let threshold = config.warning_threshold;
    if failed_so < threshold {
        return None;
    }
    run.warned_causes |= bit;
    let mut found = Finding::new(
        DetectorId::SharedCause,
        Level::Warning,
        failed_so,
        threshold,
    );
    found.cause = Some(cause);
    Some(found)
}

//! `post_compaction_loop`: after the host compacted the run's context (`Guard::compacted`), the
//! next `postCompactionGuard.windowSize` completions are watched; when all of them are the same
//! call with the same outcome, the model is redoing what the lost context already held, and the
//! run stops. Judged at `record`, never at `check`.

use crate::run::call_record::Fingerprint;
use crate::run::state::{CompactionWatch, Run};
use crate::verdict::{DetectorId, Finding, Level};

/// Arms the watch of `run` for the next `window` completions.
pub fn arm(run: &mut Run, window: u32) {
    let watch = CompactionWatch {
        remaining: window,
        first: None,
        identical: 0,
    };
    run.compaction = Some(Box::new(watch));
}

/// Feeds one completion to an armed post-compaction watch; fires when all `window` completions
/// after compaction are the same (tool, args, outcome) triple.
pub fn at_record(
    run: &mut Run,
    triple: (String, Fingerprint, Fingerprint),
    window: u32,
) -> Option<Finding> {
    let watch = run.compaction.as_mut()?;
    match &watch.first {
        None => {
            watch.first = Some(triple);
            watch.identical = 1;
        }
        Some(first) if *first == triple => watch.identical += 1,
        Some(_) => {}
    }
    watch.remaining = watch.remaining.saturating_sub(1);
    let identical = watch.identical;
    if identical >= window {
        run.compaction = None;
        return Some(Finding::new(
            DetectorId::PostCompactionLoop,
            Level::CircuitBreak,
            identical,
            window,
        ));
    }
    if watch.remaining == 0 {
        run.compaction = None;
    }
    None
}

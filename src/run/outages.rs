//! Calls failing transiently (`record::failure_class`): per call, when its failures in a row began,
//! the last one, how many there were and how long it was asked to wait before the next try. A
//! transient failure is an outage, not a loop: its record leaves the window, and only this state
//! says when a retry may come (`detectors::transient_failure`). A success forgets the call.

use crate::run::call_record::Fingerprint;

/// The wait after the first transient failure when the service named none; it doubles with each
/// further failure in a row, up to `MAX_BACKOFF_MS`.
pub const BASE_BACKOFF_MS: f64 = 1000.0;
pub const MAX_BACKOFF_MS: f64 = 60_000.0;
/// Calls remembered per run; the oldest is forgotten beyond this.
pub const CALLS_KEPT: usize = 8;

/// One call's failures in a row.
#[derive(Debug, Clone, PartialEq)]
pub struct Outage {
    /// The FNV-1a hash of the tool's name.
    pub tool: u32,
    pub args: Fingerprint,
    /// When the first and the last of the failures were recorded (ms).
    pub first_at: f64,
    pub last_at: f64,
    pub failures: u32,
    /// How long to wait after the last failure (ms): what the service asked for, else the
    /// back-off.
    pub wait_ms: f64,
    /// A retry was refused as the service being unavailable (once per outage).
    pub told_unavailable: bool,
}

/// The run's calls in an outage. Boxed: a run without one pays one pointer for it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outages {
    // A thin pointer (8 bytes), not a `Vec` (24): 100,000 idle runs must fit in 128 MB.
    #[allow(clippy::box_collection)]
    calls: Option<Box<Vec<Outage>>>,
}

impl Outages {
    /// Notes a transient failure of the call recorded at `at`; `asked_ms`: the wait the service
    /// named. Returns the call's outage.
    pub fn failed(
        &mut self,
        tool: u32,
        args: Fingerprint,
        at: f64,
        asked_ms: Option<f64>,
    ) -> &Outage {
        let calls = self.calls.get_or_insert_with(Box::default);
        let index = match calls.iter().position(|o| o.tool == tool && o.args == args) {
            Some(index) => index,
            None => {
                if calls.len() >= CALLS_KEPT {
                    calls.remove(0);
                }
                calls.push(Outage {
                    tool,
                    args,
                    first_at: at,
                    last_at: at,
                    failures: 0,
                    wait_ms: 0.0,
                    told_unavailable: false,
                });
                calls.len() - 1
            }
        };
        let mut outage = calls.remove(index);
        outage.failures = outage.failures.saturating_add(1);
        outage.last_at = at;
        outage.wait_ms = asked_ms.unwrap_or_else(|| backoff_ms(outage.failures));
        calls.push(outage);
        // Just pushed: the vector is not empty.
        calls.last().unwrap_or_else(|| unreachable!())
    }

    /// A retry of the call was refused as the service being unavailable.
    pub fn told_unavailable(&mut self, tool: u32, args: &Fingerprint) {
        if let Some(calls) = &mut self.calls {
            for outage in calls
                .iter_mut()
                .filter(|o| o.tool == tool && o.args == *args)
            {
                outage.told_unavailable = true;
            }
        }
    }

    /// The call succeeded (or failed for good): its outage is over.
    pub fn ended(&mut self, tool: u32, args: &Fingerprint) {
        if let Some(calls) = &mut self.calls {
            calls.retain(|o| !(o.tool == tool && o.args == *args));
            if calls.is_empty() {
                self.calls = None;
            }
        }
    }

    /// The outage of a call, if it is in one.
    pub fn of(&self, tool: u32, args: &Fingerprint) -> Option<&Outage> {
        self.entries()
            .iter()
            .find(|o| o.tool == tool && o.args == *args)
    }

    /// Forgets every outage (the host reported progress).
    pub fn clear(&mut self) {
        self.calls = None;
    }

    /// Every outage, oldest first (for snapshots).
    pub fn entries(&self) -> &[Outage] {
        self.calls.as_deref().map_or(&[], Vec::as_slice)
    }

    /// Restores one outage of a snapshot (oldest first).
    pub fn restore(&mut self, outage: Outage) {
        self.calls.get_or_insert_with(Box::default).push(outage);
    }
}

/// The back-off after `failures` transient failures in a row: 1 s, 2 s, 4 s, … up to 60 s.
pub fn backoff_ms(failures: u32) -> f64 {
    let doublings = failures.saturating_sub(1).min(16);
    (BASE_BACKOFF_MS * f64::from(1u32 << doublings)).min(MAX_BACKOFF_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_in_a_row_back_off_and_a_success_ends_them() {
        let mut outages = Outages::default();
        let args = [1; 8];
        assert_eq!(outages.failed(7, args, 0.0, None).wait_ms, 1000.0);
        assert_eq!(outages.failed(7, args, 1000.0, None).wait_ms, 2000.0);
        let third = outages.failed(7, args, 3000.0, Some(30_000.0)).clone();
        assert_eq!(
            (third.first_at, third.last_at, third.failures, third.wait_ms),
            (0.0, 3000.0, 3, 30_000.0)
        );
        assert_eq!(backoff_ms(30), MAX_BACKOFF_MS);
        outages.ended(7, &args);
        assert!(outages.of(7, &args).is_none());
        assert_eq!(outages.entries(), &[]);
    }
}

//! The detector ids: one line per detector, the single list the rest of the core reads. Each line
//! gives the id's variant, its name on the wire, and its switch in the config's `detectors` block
//! (if it has one, and whether OpenClaw's config has it too). The verdicts, the counters, the
//! config's switches and the generated `js/names.ts` all come from this list.

/// Whether and how a detector can be switched off in the config's `detectors` block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    /// Always on while the guard is enabled (it has its own settings, if any).
    None,
    /// A switch of OpenClaw's `loopDetection.detectors` block too (honoured by every preset).
    OpenClaw(&'static str),
    /// A switch of this guard's own (an error under `preset: "openclaw"`).
    Own(&'static str),
}

/// Declares `DetectorId` from its lines: the enum, `ALL` in declaration order (the order the
/// counters report them), the wire names and the switches.
macro_rules! detector_ids {
    ($($(#[doc = $doc:literal])* $variant:ident = $wire:literal, $switch:expr;)*) => {
        /// Stable detector ids (snake_case on the wire).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum DetectorId {
            $($(#[doc = $doc])* $variant,)*
        }

        impl DetectorId {
            /// Every detector, in the order the counters report them.
            pub const ALL: [DetectorId; [$($wire),*].len()] = [$(DetectorId::$variant),*];

            /// The detector's id on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(DetectorId::$variant => $wire,)*
                }
            }

            /// The detector's switch in the config's `detectors` block.
            pub fn switch(self) -> Switch {
                match self {
                    $(DetectorId::$variant => $switch,)*
                }
            }
        }
    };
}

detector_ids! {
    /// One call without progress, or refusals in a row, too many times: the run stops.
    GlobalCircuitBreaker = "global_circuit_breaker", Switch::None;
    /// Repeated calls to a tool the host reported missing.
    UnknownToolRepeat = "unknown_tool_repeat", Switch::None;
    /// A poll whose output does not change.
    KnownPollNoProgress = "known_poll_no_progress", Switch::OpenClaw("knownPollNoProgress");
    /// The same call returning the same result with nothing else changing.
    GenericRepeat = "generic_repeat", Switch::OpenClaw("genericRepeat");
    /// Two calls alternating with stable results.
    PingPong = "ping_pong", Switch::OpenClaw("pingPong");
    /// After a context compaction, the next calls all the same (tool, args and result).
    PostCompactionLoop = "post_compaction_loop", Switch::None;
    /// Three to `maxCyclePeriod` calls going round with stable results.
    Cycle = "cycle", Switch::Own("cycle");
    /// One read tool, different args, the identical result.
    Stall = "stall", Switch::Own("stall");
    /// One tool failing with the identical error, whatever the args.
    ErrorRepeat = "error_repeat", Switch::Own("errorRepeat");
    /// The run's call budget (`maxTurns`) is spent.
    MaxTurns = "max_turns", Switch::None;
    /// More calls of a tool within its `cap.windowMs` than `cap.calls`.
    ToolCap = "tool_cap", Switch::None;
    /// `preset: "openclaw"` only: one tool cycling a few argument patterns without progress.
    ArgumentChurn = "argument_churn", Switch::None;
    /// A call failing transiently (429, 503, a reset): retried sooner than it was asked to wait,
    /// or for longer than `transientBudgetMs`.
    TransientFailure = "transient_failure", Switch::Own("transientFailure");
    /// Several tools failing for one cause (credentials, permissions, a full disk, …).
    SharedCause = "shared_cause", Switch::Own("sharedCause");
}

/// Which detectors are on: all but those the config's `detectors` block switched off.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DetectorSwitches {
    /// Bit `id as u32` set: the detector is off.
    off: u32,
}

impl DetectorSwitches {
    /// Whether `id` is on.
    pub fn on(&self, id: DetectorId) -> bool {
        self.off & (1 << id as u32) == 0
    }

    /// Switches `id` on or off.
    pub fn set(&mut self, id: DetectorId, on: bool) {
        match on {
            true => self.off &= !(1 << id as u32),
            false => self.off |= 1 << id as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_fit_their_bits_and_start_on() {
        assert!(DetectorId::ALL.len() <= 32);
        let mut switches = DetectorSwitches::default();
        assert!(DetectorId::ALL.iter().all(|id| switches.on(*id)));
        switches.set(DetectorId::Stall, false);
        assert!(!switches.on(DetectorId::Stall) && switches.on(DetectorId::Cycle));
        switches.set(DetectorId::Stall, true);
        assert_eq!(switches, DetectorSwitches::default());
    }
}

//! A call record's metadata, packed into one `u64` so that a record stays 32 bytes (the
//! bounded-memory figures count on it). This module is the only place that knows the bit layout;
//! everything else reads and writes the fields through `RecordMeta`'s methods.
//!
//! From the low bit up:
//!
//! | bits  | field            | holds                                                          |
//! |-------|------------------|----------------------------------------------------------------|
//! | 0-13  | tool             | index into the run's tool table (below `MAX_TOOLS`)            |
//! | 14-15 | kind             | `kind_code` of the tool's kind                                 |
//! | 16-19 | warned           | `detector_code` of the detector that warned at check (0: none) |
//! | 20-21 | stage            | pending, vetoed or completed                                   |
//! | 22-25 | flags            | `OutcomeFlags` of a completed record (0 otherwise)             |
//! | 26-63 | call id          | while pending: the call-id key, 38 bits (0: none)              |
//! | 26-44 | same outcome run | once settled: streak counter, 19 bits                          |
//! | 45-63 | no progress      | once settled: streak counter, 19 bits                          |

use crate::config::tools::ToolKind;
use crate::verdict::DetectorId;

/// `bits` bits of the metadata, starting at bit `shift`.
#[derive(Clone, Copy)]
struct Field {
    shift: u32,
    bits: u32,
}

impl Field {
    /// The field of `bits` bits right above this one.
    const fn above(self, bits: u32) -> Field {
        Field {
            shift: self.shift + self.bits,
            bits,
        }
    }

    /// The largest value the field holds.
    const fn max(self) -> u64 {
        (1 << self.bits) - 1
    }

    /// The bits below this field.
    const fn below(self) -> u64 {
        (1 << self.shift) - 1
    }

    fn get(self, meta: u64) -> u64 {
        (meta >> self.shift) & self.max()
    }

    /// `meta` with this field set to `value`, cut to the field's width.
    fn set(self, meta: u64, value: u64) -> u64 {
        (meta & !(self.max() << self.shift)) | ((value & self.max()) << self.shift)
    }
}

// The layout (the table above). The call id and the two counters share the top 38 bits.
const TOOL: Field = Field { shift: 0, bits: 14 };
const KIND: Field = TOOL.above(2);
const WARNED: Field = KIND.above(4);
const STAGE: Field = WARNED.above(2);
const FLAGS: Field = STAGE.above(4);
const CALL_ID: Field = FLAGS.above(38);
const SAME_OUTCOME_RUN: Field = FLAGS.above(19);
const NO_PROGRESS: Field = SAME_OUTCOME_RUN.above(19);

const _: () = assert!(CALL_ID.shift + CALL_ID.bits == u64::BITS);
const _: () = assert!(NO_PROGRESS.shift + NO_PROGRESS.bits == u64::BITS);
// Every detector id (plus "none") fits the warned field.
const _: () = assert!(DetectorId::ALL.len() as u64 <= WARNED.max());

// The stage field.
const PENDING: u64 = 0;
const VETOED: u64 = 1;
const COMPLETED: u64 = 2;

/// A run's tool table holds at most this many names (records keep a 14-bit index). The table is
/// compacted to the names its window uses, and `historySize` is at most 10,000, so it never
/// comes close.
pub const MAX_TOOLS: usize = 1 << TOOL.bits;

/// Streak counters (`same_outcome_run`, `no_progress`) saturate here: 19 bits, above the largest
/// threshold the config accepts (`config::MAX_COUNT`), so no threshold comparison sees the cap.
pub const COUNTER_MAX: u32 = SAME_OUTCOME_RUN.max() as u32;
// Every threshold the config accepts stays below the counters' cap, so no comparison saturates.
const _: () = assert!(crate::config::MAX_COUNT < COUNTER_MAX as u64);

/// What a completed record's outcome was. The values are also the flags byte of a completed
/// record in a snapshot: renumbering them changes the snapshot format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutcomeFlags(u8);

impl OutcomeFlags {
    /// The tool threw, flagged its result as an error, or answered with a failure text.
    pub const ERROR: OutcomeFlags = OutcomeFlags(1);
    /// The outcome reported the tool missing.
    pub const MISSING_TOOL: OutcomeFlags = OutcomeFlags(2);
    /// No earlier record in the window made this call and got this outcome (set by `Run::settle`).
    pub const NOVEL: OutcomeFlags = OutcomeFlags(4);
    /// The result said nothing: null, an empty or whitespace-only text.
    pub const BLANK: OutcomeFlags = OutcomeFlags(8);

    /// The flags of `bits`; `None` if it sets a bit that names no flag.
    pub fn from_bits(bits: u8) -> Option<OutcomeFlags> {
        (u64::from(bits) <= FLAGS.max()).then_some(OutcomeFlags(bits))
    }

    pub fn bits(self) -> u8 {
        self.0
    }

    pub fn contains(self, flag: OutcomeFlags) -> bool {
        self.0 & flag.0 == flag.0
    }

    /// These flags with `flag` added when `set` holds.
    pub fn with(self, flag: OutcomeFlags, set: bool) -> OutcomeFlags {
        if set {
            OutcomeFlags(self.0 | flag.0)
        } else {
            self
        }
    }
}

/// The code of a tool kind (also its snapshot byte). An unknown call is kept as a command: what a
/// record's kind tells later calls is whether it watched, read, or may have written anything,
/// and an unknown call, like a command, may have read or written anything.
pub fn kind_code(kind: ToolKind) -> u8 {
    match kind {
        ToolKind::Poll => 0,
        ToolKind::Read => 1,
        ToolKind::Mutate => 2,
        ToolKind::Command | ToolKind::Unknown => 3,
    }
}

pub fn kind_from_code(code: u8) -> Option<ToolKind> {
    match code {
        0 => Some(ToolKind::Poll),
        1 => Some(ToolKind::Read),
        2 => Some(ToolKind::Mutate),
        3 => Some(ToolKind::Command),
        _ => None,
    }
}

/// The code of a detector (also its snapshot byte): 1 + its place in `DetectorId::ALL`; 0 for
/// none.
pub fn detector_code(id: Option<DetectorId>) -> u8 {
    id.and_then(|id| DetectorId::ALL.iter().position(|d| *d == id))
        .map_or(0, |i| u8::try_from(i + 1).unwrap_or(0))
}

/// The detector of a code; `None` for 0 and for a code that names none.
pub fn detector_from_code(code: u8) -> Option<DetectorId> {
    DetectorId::ALL
        .get(usize::from(code).checked_sub(1)?)
        .copied()
}

/// The key a call id's FNV-1a hash is matched by: its low 38 bits, 0 kept as 1 so that 0 can
/// mean "none".
fn call_id_key(hash: u64) -> u64 {
    (hash & CALL_ID.max()).max(1)
}

/// The packed metadata of one call record (layout in the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordMeta(u64);

impl RecordMeta {
    /// A pending record's metadata: no warning yet, and the key of `call_id` (the FNV-1a hash of
    /// the host's call id) if it has one. `tool` must be below `MAX_TOOLS`.
    pub fn pending(tool: u16, kind: ToolKind, call_id: Option<u64>) -> RecordMeta {
        let meta = TOOL.set(0, u64::from(tool));
        let meta = KIND.set(meta, u64::from(kind_code(kind)));
        RecordMeta(CALL_ID.set(meta, call_id.map_or(0, call_id_key)))
    }

    /// Index into the run's tool-name table.
    pub fn tool(self) -> u16 {
        TOOL.get(self.0) as u16
    }

    pub fn set_tool(&mut self, tool: u16) {
        self.0 = TOOL.set(self.0, u64::from(tool));
    }

    pub fn kind(self) -> ToolKind {
        kind_from_code(KIND.get(self.0) as u8).unwrap_or(ToolKind::Read)
    }

    /// The detector that warned when this call was checked, if any.
    pub fn warned(self) -> Option<DetectorId> {
        detector_from_code(WARNED.get(self.0) as u8)
    }

    pub fn set_warned(&mut self, warned: Option<DetectorId>) {
        self.0 = WARNED.set(self.0, u64::from(detector_code(warned)));
    }

    pub fn is_pending(self) -> bool {
        STAGE.get(self.0) == PENDING
    }

    pub fn is_vetoed(self) -> bool {
        STAGE.get(self.0) == VETOED
    }

    pub fn is_completed(self) -> bool {
        STAGE.get(self.0) == COMPLETED
    }

    /// The outcome's flags (none unless completed).
    pub fn flags(self) -> OutcomeFlags {
        OutcomeFlags(FLAGS.get(self.0) as u8)
    }

    /// Marks the record refused. Its call-id key gives way to the streak counters, both 0.
    pub fn veto(&mut self) {
        self.settle(VETOED, 0);
    }

    /// Marks the record completed with `flags`. Its call-id key gives way to the streak
    /// counters, both 0.
    pub fn complete(&mut self, flags: OutcomeFlags) {
        self.settle(COMPLETED, flags.0);
    }

    fn settle(&mut self, stage: u64, flags: u8) {
        let meta = STAGE.set(self.0 & STAGE.below(), stage);
        self.0 = FLAGS.set(meta, u64::from(flags));
    }

    /// Marks a completed record novel; a record without an outcome is left as it is.
    pub fn mark_novel(&mut self) {
        if self.is_completed() {
            let flags = self.flags().with(OutcomeFlags::NOVEL, true);
            self.0 = FLAGS.set(self.0, u64::from(flags.0));
        }
    }

    /// The key of the host's call id, while pending (and when it had one).
    pub fn call_id(self) -> Option<u64> {
        let key = CALL_ID.get(self.0);
        (self.is_pending() && key != 0).then_some(key)
    }

    /// Whether a pending record's call id is the one hashing to `hash`.
    pub fn has_call_id(self, hash: u64) -> bool {
        self.call_id() == Some(call_id_key(hash))
    }

    /// Same call, same outcome, this many times in a row (0 while pending).
    pub fn same_outcome_run(self) -> u32 {
        self.counter(SAME_OUTCOME_RUN)
    }

    /// Calls of this fingerprint without progress, this one included (0 while pending).
    pub fn no_progress(self) -> u32 {
        self.counter(NO_PROGRESS)
    }

    fn counter(self, field: Field) -> u32 {
        if self.is_pending() {
            0
        } else {
            field.get(self.0) as u32
        }
    }

    /// Sets the streak counters of a settled record, saturating at `COUNTER_MAX`; a pending
    /// record has none (its bits hold the call-id key).
    pub fn set_counters(&mut self, same_outcome_run: u32, no_progress: u32) {
        if self.is_pending() {
            return;
        }
        let meta = SAME_OUTCOME_RUN.set(self.0, u64::from(same_outcome_run.min(COUNTER_MAX)));
        self.0 = NO_PROGRESS.set(meta, u64::from(no_progress.min(COUNTER_MAX)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use serde_json::json;

    #[test]
    fn the_fields_are_laid_out_as_the_table_says() {
        let fields = [
            (TOOL, 0, 13),
            (KIND, 14, 15),
            (WARNED, 16, 19),
            (STAGE, 20, 21),
            (FLAGS, 22, 25),
            (CALL_ID, 26, 63),
            (SAME_OUTCOME_RUN, 26, 44),
            (NO_PROGRESS, 45, 63),
        ];
        for (field, first, last) in fields {
            assert_eq!((field.shift, field.shift + field.bits - 1), (first, last));
        }
        assert_eq!(MAX_TOOLS, 1 << 14);
        assert_eq!(COUNTER_MAX, (1 << 19) - 1);
        // The four flags fill the flags field exactly.
        let all = OutcomeFlags::ERROR.bits()
            | OutcomeFlags::MISSING_TOOL.bits()
            | OutcomeFlags::NOVEL.bits()
            | OutcomeFlags::BLANK.bits();
        assert_eq!(u64::from(all), FLAGS.max());
    }

    #[test]
    fn a_pending_record_keeps_its_call_id_key_until_settled() {
        let meta = RecordMeta::pending(3, ToolKind::Read, Some(1 << 38));
        assert_eq!(
            meta.call_id(),
            Some(1),
            "a call id whose low 38 bits are 0 is kept as 1"
        );
        assert!(meta.has_call_id(1 << 38) && meta.has_call_id(1));
        assert_eq!(RecordMeta::pending(3, ToolKind::Read, None).call_id(), None);
        assert_eq!((meta.same_outcome_run(), meta.no_progress()), (0, 0));
        let mut settled = meta;
        settled.set_counters(5, 5);
        assert_eq!(settled, meta, "a pending record has no counters");
        settled.veto();
        assert!(settled.is_vetoed() && !settled.is_pending());
        assert_eq!(settled.call_id(), None);
        assert!(!settled.has_call_id(1));
    }

    #[test]
    fn packed_fields_do_not_bleed_into_each_other() {
        let last_detector = DetectorId::ALL.last().copied();
        let top_tool = (MAX_TOOLS - 1) as u16;
        let mut meta = RecordMeta::pending(top_tool, ToolKind::Command, Some(u64::MAX));
        meta.set_warned(last_detector);
        assert_eq!(
            (meta.tool(), meta.kind(), meta.warned()),
            (top_tool, ToolKind::Command, last_detector)
        );
        assert_eq!(meta.call_id(), Some(CALL_ID.max()));
        assert_eq!(meta.flags(), OutcomeFlags::default());
        let all = OutcomeFlags::from_bits(15).unwrap_or_default();
        meta.complete(all);
        meta.set_counters(COUNTER_MAX + 5, u32::MAX);
        assert_eq!(
            (meta.same_outcome_run(), meta.no_progress()),
            (COUNTER_MAX, COUNTER_MAX)
        );
        meta.set_counters(1, COUNTER_MAX - 1);
        assert_eq!(
            (meta.same_outcome_run(), meta.no_progress()),
            (1, COUNTER_MAX - 1)
        );
        assert_eq!(
            (meta.tool(), meta.kind(), meta.warned(), meta.flags()),
            (top_tool, ToolKind::Command, last_detector, all)
        );
        assert!(meta.is_completed());
        meta.set_tool(5);
        meta.set_warned(None);
        assert_eq!((meta.tool(), meta.warned()), (5, None));
        assert_eq!(
            (meta.same_outcome_run(), meta.no_progress()),
            (1, COUNTER_MAX - 1)
        );
        meta.veto();
        assert!(meta.is_vetoed());
        assert_eq!(meta.flags(), OutcomeFlags::default());
        assert_eq!((meta.same_outcome_run(), meta.no_progress()), (0, 0));
        assert_eq!((meta.tool(), meta.kind()), (5, ToolKind::Command));
    }

    #[test]
    fn only_a_completed_record_is_novel() {
        let mut meta = RecordMeta::pending(0, ToolKind::Read, None);
        meta.mark_novel();
        assert_eq!(meta.flags(), OutcomeFlags::default());
        meta.veto();
        meta.mark_novel();
        assert_eq!(meta.flags(), OutcomeFlags::default());
        meta.complete(OutcomeFlags::default().with(OutcomeFlags::ERROR, true));
        meta.mark_novel();
        assert!(meta.flags().contains(OutcomeFlags::NOVEL));
        assert!(meta.flags().contains(OutcomeFlags::ERROR));
        assert!(!meta.flags().contains(OutcomeFlags::BLANK));
    }

    #[test]
    fn codes_name_what_they_were_made_from() {
        for kind in [
            ToolKind::Poll,
            ToolKind::Read,
            ToolKind::Mutate,
            ToolKind::Command,
        ] {
            assert_eq!(kind_from_code(kind_code(kind)), Some(kind));
        }
        assert_eq!(kind_from_code(4), None);
        for id in DetectorId::ALL.map(Some).into_iter().chain([None]) {
            assert_eq!(detector_from_code(detector_code(id)), id);
        }
        assert_eq!(detector_from_code(DetectorId::ALL.len() as u8 + 1), None);
        assert_eq!(OutcomeFlags::from_bits(16), None);
        assert_eq!(
            OutcomeFlags::from_bits(5).map(OutcomeFlags::bits),
            Some(5),
            "error and novel"
        );
    }

    #[test]
    fn no_threshold_a_streak_counter_is_compared_with_can_reach_its_cap() {
        let too_big = COUNTER_MAX + 1;
        let configs = [
            json!({"warningThreshold": too_big}),
            json!({"criticalThreshold": too_big}),
            json!({"globalCircuitBreakerThreshold": too_big}),
            json!({"tools": {"t": {"criticalThreshold": too_big}}}),
            json!({"tools": {"t": {"warningThreshold": too_big}}}),
        ];
        for config in configs {
            let error = Config::from_json(&config).err();
            assert!(
                error.is_some_and(|e| e.message.contains("no larger than")),
                "{config} was not refused for its size"
            );
        }
        let largest = json!({"warningThreshold": 499_998, "criticalThreshold": 499_999,
            "globalCircuitBreakerThreshold": 500_000});
        assert!(Config::from_json(&largest).is_ok());
    }
}

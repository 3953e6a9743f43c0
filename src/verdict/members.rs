//! A verdict's members on the wire, walked in one place: `Verdict::write_members` hands them, in
//! their order, to a `MemberSink`. The JSON writer is one sink (`Verdict::to_json`, for native hosts
//! and the tests); the answer frame the wasm host decodes is another (`answer_frame`). So the two
//! forms cannot drift apart: a member is added, renamed or left out here, for both.

use crate::json::writer::JsonObject;
use crate::verdict::{DetectorId, Refusal, Verdict, WouldBe};

/// The name of every member of a verdict and of the objects inside it. The answer frame names a
/// member by its code (`key as u8`); `js/names.ts` lists the names in code order (`ALL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Action,
    Level,
    Detector,
    Count,
    Threshold,
    Tool,
    RunId,
    Message,
    UserMessage,
    Hint,
    Refusal,
    WouldBe,
    RetryAfterMs,
    SameAs,
    Error,
    Mode,
    Observed,
    PartnerTool,
    WindowMs,
}

impl Key {
    /// Every key, in code order (read by the generator of `js/names.ts` and the tests).
    #[cfg(test)]
    pub const ALL: [Key; 19] = [
        Key::Action,
        Key::Level,
        Key::Detector,
        Key::Count,
        Key::Threshold,
        Key::Tool,
        Key::RunId,
        Key::Message,
        Key::UserMessage,
        Key::Hint,
        Key::Refusal,
        Key::WouldBe,
        Key::RetryAfterMs,
        Key::SameAs,
        Key::Error,
        Key::Mode,
        Key::Observed,
        Key::PartnerTool,
        Key::WindowMs,
    ];

    /// The member's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Key::Action => "action",
            Key::Level => "level",
            Key::Detector => "detector",
            Key::Count => "count",
            Key::Threshold => "threshold",
            Key::Tool => "tool",
            Key::RunId => "runId",
            Key::Message => "message",
            Key::UserMessage => "userMessage",
            Key::Hint => "hint",
            Key::Refusal => "refusal",
            Key::WouldBe => "wouldBe",
            Key::RetryAfterMs => "retryAfterMs",
            Key::SameAs => "sameAs",
            Key::Error => "error",
            Key::Mode => "mode",
            Key::Observed => "observed",
            Key::PartnerTool => "partnerTool",
            Key::WindowMs => "windowMs",
        }
    }
}

/// Where a verdict's members go, one at a time, in order; `begin` opens a nested object that the
/// matching `end` closes.
pub(crate) trait MemberSink {
    fn string(&mut self, key: Key, value: &str);
    fn uint(&mut self, key: Key, value: u32);
    /// A number; one that is not finite is written as `null` (JSON cannot carry it).
    fn number(&mut self, key: Key, value: f64);
    fn null(&mut self, key: Key);
    fn begin(&mut self, key: Key);
    fn end(&mut self);

    /// A string, or `null` when there is none.
    fn opt_string(&mut self, key: Key, value: Option<&str>) {
        match value {
            Some(value) => self.string(key, value),
            None => self.null(key),
        }
    }
}

impl MemberSink for JsonObject {
    fn string(&mut self, key: Key, value: &str) {
        JsonObject::string(self, key.as_str(), value);
    }

    fn uint(&mut self, key: Key, value: u32) {
        JsonObject::uint(self, key.as_str(), value.into());
    }

    fn number(&mut self, key: Key, value: f64) {
        JsonObject::number(self, key.as_str(), value);
    }

    fn null(&mut self, key: Key) {
        JsonObject::null(self, key.as_str());
    }

    fn begin(&mut self, key: Key) {
        JsonObject::begin(self, key.as_str());
    }

    fn end(&mut self) {
        JsonObject::end(self);
    }
}

/// Room for a verdict's JSON: a refusal with its texts takes about 1.2 KB.
const VERDICT_JSON_BYTES: usize = 1536;

impl Verdict {
    /// The JSON text of the verdict (see [`Verdict`] for the shape).
    pub fn to_json(&self) -> String {
        let mut o = JsonObject::with_room(VERDICT_JSON_BYTES);
        self.write_members(&mut o);
        o.finish()
    }

    /// Hands the members to `sink`, in their wire order.
    pub(crate) fn write_members(&self, sink: &mut impl MemberSink) {
        sink.string(Key::Action, self.action.as_str());
        sink.string(Key::Level, self.level.as_str());
        sink.opt_string(Key::Detector, self.detector.map(DetectorId::as_str));
        sink.uint(Key::Count, self.count);
        match self.threshold {
            Some(threshold) => sink.uint(Key::Threshold, threshold),
            None => sink.null(Key::Threshold),
        }
        sink.string(Key::Tool, &self.tool);
        sink.opt_string(Key::RunId, self.run_id.as_deref());
        sink.opt_string(Key::Message, self.message.as_deref());
        if let Some(user_message) = self.user_message() {
            sink.string(Key::UserMessage, &user_message);
        }
        if let Some(hint) = &self.hint {
            sink.string(Key::Hint, hint);
        }
        if let Some(refusal) = &self.refusal {
            sink.begin(Key::Refusal);
            refusal.write_members(sink);
            sink.end();
        }
        if let Some(would_be) = &self.would_be {
            sink.begin(Key::WouldBe);
            would_be.write_members(sink);
            sink.end();
        }
        if let Some(ms) = self.retry_after_ms {
            sink.number(Key::RetryAfterMs, ms);
        }
        if let Some(id) = &self.same_as {
            sink.string(Key::SameAs, id);
        }
    }
}

impl Refusal {
    fn write_members(&self, sink: &mut impl MemberSink) {
        let observed = &self.observed;
        sink.string(Key::Error, self.error);
        sink.string(Key::Mode, self.mode.as_str());
        sink.string(Key::Message, &self.message);
        sink.begin(Key::Observed);
        sink.string(Key::Tool, &observed.tool);
        sink.uint(Key::Count, observed.count);
        sink.uint(Key::Threshold, observed.threshold);
        sink.string(Key::Level, observed.level.as_str());
        if let Some(partner) = &observed.partner_tool {
            sink.string(Key::PartnerTool, partner);
        }
        if let Some(ms) = observed.retry_after_ms {
            sink.number(Key::RetryAfterMs, ms);
        }
        if let Some(ms) = observed.window_ms {
            sink.number(Key::WindowMs, ms);
        }
        sink.end();
    }
}

impl WouldBe {
    fn write_members(&self, sink: &mut impl MemberSink) {
        sink.string(Key::Action, self.action.as_str());
        sink.string(Key::Level, self.level.as_str());
        sink.opt_string(Key::Detector, self.detector.map(DetectorId::as_str));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_sits_at_its_code() {
        for (code, key) in Key::ALL.iter().enumerate() {
            assert_eq!(*key as usize, code, "{key:?}");
        }
    }
}

//! Every text the model reads: what happened, in numbers, and what to do instead.
//! One place, so wording stays consistent and never drifts into the JS wrapper.

use crate::json::number_format::Decimal;
use crate::verdict::{Basis, DetectorId, Finding, Level};

/// The message for a finding about a call to `tool`.
pub fn for_finding(finding: &Finding, tool: &str) -> String {
    let n = finding.count;
    let partner = finding.partner_tool.as_deref().unwrap_or("another tool");
    match (finding.detector, finding.level) {
        (DetectorId::GenericRepeat, Level::Critical) if finding.basis == Basis::DespiteChanges => {
            format!(
                "Refused: `{tool}` was called with identical arguments and returned the identical result \
                 {n} times, even though other calls changed things in between. Another identical call \
                 will not produce anything new. Do not retry it: change your approach, or tell the user \
                 what you tried and that this step could not be completed."
            )
        }
        (DetectorId::PingPong | DetectorId::Cycle, Level::Critical)
            if finding.basis == Basis::NothingNew =>
        {
            format!(
                "Refused: your last {n} calls, going round the same few calls, returned nothing you had \
                 not already seen. Calling `{tool}` again will not either. Do not continue: change \
                 approach, or tell the user what is blocking you."
            )
        }
        (DetectorId::GenericRepeat, Level::Warning) => format!(
            "Loop warning: you have called `{tool}` with identical arguments {n} times in this run. \
             If the result is not changing, repeating the call will not help: change the arguments, \
             try a different approach, or answer with what you already know."
        ),
        (DetectorId::GenericRepeat, _) => format!(
            "Refused: `{tool}` was called with identical arguments and returned the identical result \
             {n} times in a row, with nothing else changing in between, so another identical call \
             cannot produce anything new. Do not retry it. \
             Change your approach, or tell the user what you tried and that this step could not be completed."
        ),
        (DetectorId::KnownPollNoProgress, Level::Warning) => format!(
            "Loop warning: polling `{tool}` has returned the same status {n} times in a row. The process \
             shows no progress. Wait longer before polling again, check it another way, or stop polling \
             and report its current state."
        ),
        (DetectorId::KnownPollNoProgress, _) => format!(
            "Refused: `{tool}` returned the same status {n} polls in a row with no progress. Stop polling. \
             Report the current state to the user, or act on the process (inspect its logs, stop or restart it)."
        ),
        (DetectorId::PingPong, Level::Warning) => format!(
            "Loop warning: you are alternating between `{tool}` and `{partner}` ({n} calls) without \
             getting anywhere new. Step back: decide what information is still missing and get it a \
             different way, or answer with what you have."
        ),
        (DetectorId::PingPong, _) => format!(
            "Refused: alternating between `{tool}` and `{partner}` has returned the same results for {n} \
             calls. The cycle is not making progress. Do not continue it: change approach, or tell the \
             user what is blocking you."
        ),
        (DetectorId::ArgumentChurn, _) => format!(
            "Loop warning: `{tool}` keeps cycling a few argument patterns that all return one \
             unchanging outcome ({n} calls). This tool call remains allowed, but the churn is not \
             progress: change approach or report what is blocking you."
        ),
        (DetectorId::UnknownToolRepeat, _) => format!(
            "Refused: the tool `{tool}` does not exist here; calls to it failed {n} times. Do not call it \
             again. Use only the tools you were given, or answer without this tool."
        ),
        (DetectorId::GlobalCircuitBreaker, _) => format!(
            "Stopped: this run made {n} calls to `{tool}` without progress (identical results or refused \
             calls). The run is ending now. Give your final answer from what you already know, and say \
             plainly which part of the task could not be completed."
        ),
        (DetectorId::Cycle, Level::Warning) => format!(
            "Loop warning: your last {n} calls repeat the same sequence of tool calls, ending with \
             `{tool}`. Repeating the sequence again will give the same answers. Decide what is still \
             missing and get it another way, or answer with what you have."
        ),
        (DetectorId::Cycle, _) => format!(
            "Refused: the same sequence of tool calls ending with `{tool}` has repeated for {n} calls with \
             identical results at every step. Do not go round again: change approach, or tell the user \
             what is blocking you."
        ),
        (DetectorId::Stall, Level::Warning) => format!(
            "Loop warning: `{tool}` has returned the identical result {n} times in a row although you \
             changed the arguments each time. Varying the arguments is not helping. Try a different tool \
             or approach, or answer with what you know."
        ),
        (DetectorId::Stall, _) => format!(
            "Refused: `{tool}` returned the identical result {n} times in a row for different arguments; \
             more variations will not change it. Stop calling `{tool}` for this. Use another approach, or \
             tell the user what you found and what you could not find."
        ),
        (DetectorId::ErrorRepeat, Level::Warning) => format!(
            "Loop warning: `{tool}` has failed with the same error {n} times in a row. Read the error \
             message and fix its cause before calling the tool again, or try something else."
        ),
        (DetectorId::ErrorRepeat, _) => format!(
            "Refused: `{tool}` failed with the identical error {n} times in a row. Retrying will fail the \
             same way. Do not call it again until its cause is fixed; otherwise report the failure to the \
             user."
        ),
        (DetectorId::MaxTurns, _) => format!(
            "Stopped: this run has reached its limit of {limit} tool calls. Do not call any more tools. \
             Give your final answer now from what you already know, and say what is left undone.",
            limit = finding.threshold
        ),
        (DetectorId::ToolCap, _) => {
            let wait_s = display((finding.retry_after_ms.unwrap_or(0.0) / 1000.0).ceil());
            let window_s = display(finding.window_ms.unwrap_or(0.0) / 1000.0);
            format!(
                "Refused: `{tool}` may be called at most {limit} times in {window_s} seconds and that limit \
                 is reached. It may be called again in {wait_s} seconds. Meanwhile work with the results \
                 you already have.",
                limit = finding.threshold
            )
        }
        (DetectorId::PostCompactionLoop, _) => format!(
            "Stopped: after the conversation was compacted, `{tool}` was called {n} times in a row with the \
             same arguments and got the same result, so the loop from before compaction has resumed. The \
             run is ending now. Give your final answer from what you already know."
        ),
    }
}

/// The warning sent with a result when the identical next call would be refused.
pub fn forecast(finding: &Finding, tool: &str) -> String {
    let n = finding.count;
    let reason = match finding.detector {
        DetectorId::GenericRepeat => match finding.basis {
            Basis::DespiteChanges => format!("it has returned the same result {n} times"),
            _ => format!("it has returned the same result {n} times in a row"),
        },
        DetectorId::KnownPollNoProgress => {
            format!("it has returned the same status {n} polls in a row")
        }
        DetectorId::UnknownToolRepeat => format!("the tool was reported missing {n} times"),
        DetectorId::GlobalCircuitBreaker => format!("{n} calls to it made no progress"),
        DetectorId::ErrorRepeat => format!("it failed with the same error {n} times in a row"),
        DetectorId::Stall => {
            format!("it returned the identical result {n} times for different arguments")
        }
        DetectorId::MaxTurns => format!("the run has used its {n} tool calls"),
        DetectorId::ToolCap => format!(
            "its limit of {} calls in its time window is reached",
            finding.threshold
        ),
        DetectorId::PingPong | DetectorId::Cycle if finding.basis == Basis::NothingNew => {
            format!("{n} calls in a row returned nothing new")
        }
        DetectorId::PingPong
        | DetectorId::Cycle
        | DetectorId::PostCompactionLoop
        | DetectorId::ArgumentChurn => {
            format!("{n} calls made no progress")
        }
    };
    let consequence = if finding.level == Level::CircuitBreak {
        "will end this run"
    } else {
        "will be refused"
    };
    format!(
        "Loop warning: calling `{tool}` again with the same arguments {consequence}, because {reason}. \
         Use this result, change your approach, or finish with what you know."
    )
}

/// `x` as Rust's `Display` writes it (`60`, `1.5`, `0.001`, `-0`, `inf`): shortest round-trip
/// digits, never an exponent. Written with the JCS number digits so that only one float
/// formatter is linked.
fn display(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_owned();
    }
    let mut out = Vec::new();
    if x.is_sign_negative() {
        out.push(b'-');
    }
    if x.is_infinite() {
        out.extend_from_slice(b"inf");
    } else if x == 0.0 {
        out.push(b'0');
    } else {
        Decimal::shortest(x.abs(), false).write_positional(&mut out);
    }
    // Only ASCII was written.
    String::from_utf8(out).unwrap_or_default()
}

/// The text the person who asked the agent reads when the guard ends a run (a `stop` verdict's
/// `userMessage`): what happened, in plain words, with no instruction meant for the model.
pub fn for_user(detector: DetectorId, tool: &str, count: u32, threshold: u32) -> String {
    match detector {
        DetectorId::MaxTurns => format!(
            "The assistant stopped before finishing this request: it reached its limit of {threshold} \
             tool calls. Ask again, perhaps with a narrower request, to continue."
        ),
        DetectorId::PostCompactionLoop => format!(
            "The assistant stopped before finishing this request: after its earlier conversation was \
             condensed, it went back to repeating the same `{tool}` call ({count} times, with the same \
             result each time). Ask again with more detail, or in smaller steps, to continue."
        ),
        _ => format!(
            "The assistant stopped before finishing this request: it kept repeating the same `{tool}` \
             call without getting anywhere ({count} calls that brought nothing new), so the loop was \
             ended. Ask again with more detail, or in smaller steps, to continue."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_matches_rust_display() {
        let mut rng = crate::json::test_rng::Rng(0x2545_f491_4f6c_dd1d);
        let mut cases = vec![
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            60.0,
            1.5,
            0.001,
            -2.5,
            1e21,
            1e-7,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.1 + 0.2,
            123_456_789.125,
            // Exact ties between two shortest candidates: Rust rounds them up.
            2f64.powi(50) + 0.25,
            2f64.powi(49) + 0.125,
        ];
        for _ in 0..20_000 {
            let state = rng.next();
            cases.push(f64::from_bits(state));
            cases.push((state % 1_000_000) as f64 / 1000.0);
        }
        for x in cases {
            assert_eq!(display(x), format!("{x}"), "{:e}", x);
        }
    }
}

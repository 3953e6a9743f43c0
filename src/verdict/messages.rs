//! Every text the model reads: what happened, in numbers, and what to do instead.
//! One place, so wording stays consistent and never drifts into the JS wrapper.

use crate::json::number_format::Decimal;
use crate::verdict::{Basis, DetectorId, Finding, Level, OpenClawDetail, SharedCause, StopCause};

/// The message for a finding about a call to `tool`. Every claim is one the guard can make from
/// what it keeps: counts say how many calls ran and how many were refused, "with these arguments"
/// only where the arguments were the same, "in a row" only where the calls were consecutive.
pub fn for_finding(finding: &Finding, tool: &str) -> String {
    let n = finding.count;
    match (finding.detector, finding.level) {
        (DetectorId::GenericRepeat, Level::Critical) if finding.basis == Basis::DespiteChanges => {
            format!(
                "Refused: `{tool}` has returned the identical result the last {ran} times it ran with \
                 these arguments, although {changes} in between. What changed is not reaching what \
                 this call returns, so running it again will almost surely return the same. Do not \
                 retry it as it is: find out why the changes have no effect (a change to a file it \
                 names, or to something not changed yet, lets it run again), or tell the user what \
                 you tried and that this step could not be completed.",
                ran = finding.ran,
                changes = other_calls_changed(finding.changes),
            )
        }
        (DetectorId::GenericRepeat, Level::Critical)
            if finding.basis == Basis::NothingChangedSince =>
        {
            format!(
                "Refused: `{tool}` has returned the identical result the last {ran} times it ran with \
                 these arguments, and nothing that could change it happened since: the calls in \
                 between only read, or changed other files. Another identical call will return the \
                 same. Use the result you have, change your approach, or tell the user what you \
                 tried and that this step could not be completed.",
                ran = finding.ran,
            )
        }
        (DetectorId::GenericRepeat, Level::Warning)
            if finding.basis == Basis::NothingChangedSince =>
        {
            format!(
                "Loop warning: `{tool}` has returned the identical result the last {ran} times it ran \
                 with these arguments, and the calls in between only read or changed other files: \
                 nothing could change it. Calling it again will return the same; use what it \
                 returned, or try something else.",
                ran = finding.ran,
            )
        }
        (DetectorId::GenericRepeat, Level::Critical) if finding.basis == Basis::NothingNewSince => {
            format!(
                "Refused: `{tool}` has returned the identical result the last {ran} times it ran with \
                 these arguments, and no call since returned anything new: the calls in between \
                 that may change things failed or returned what they had returned before. Another \
                 identical call will almost surely return the same. Use the result you have, \
                 change your approach, or tell the user what you tried and that this step could \
                 not be completed.",
                ran = finding.ran,
            )
        }
        (DetectorId::GenericRepeat, Level::Warning) if finding.basis == Basis::NothingNewSince => {
            format!(
                "Loop warning: `{tool}` has returned the identical result the last {ran} times it ran \
                 with these arguments, and the calls in between that may change things failed or \
                 returned what they had returned before. Calling it again will most likely return \
                 the same; use what it returned, or try something else.",
                ran = finding.ran,
            )
        }
        (DetectorId::GenericRepeat, Level::Warning) if finding.basis == Basis::DespiteChanges => {
            format!(
                "Loop warning: `{tool}` has returned the identical result the last {ran} times it ran \
                 with these arguments, although {changes} in between: the changes are not reaching \
                 what it reports. Find out why before changing more, or try a different approach.",
                ran = finding.ran,
                changes = other_calls_changed(finding.changes),
            )
        }
        (DetectorId::GenericRepeat, Level::Critical) if finding.basis == Basis::SameChange => {
            format!(
                "Refused: `{tool}` ran with these same arguments {ran} times in a row and returned \
                 the same result each time (numbers such as a line count or an id aside): each run \
                 made the same change again (an insertion inserted once more, a record added once \
                 more), it fixed nothing. Do not run it again: look at the current state (open the \
                 file, list the records), remove copies you did not want, or change approach.",
                ran = finding.ran,
            )
        }
        (DetectorId::GenericRepeat, Level::Warning) if finding.basis == Basis::SameChange => {
            format!(
                "Loop warning: `{tool}` ran with these same arguments {ran} times in a row and \
                 returned the same result each time (numbers such as a line count or an id aside): \
                 each run made the same change again. Look at the current state (open the file, \
                 list the records) before running it again; another identical run will repeat the \
                 change once more.",
                ran = finding.ran,
            )
        }
        (DetectorId::PingPong | DetectorId::Cycle, Level::Critical)
            if finding.basis == Basis::NothingNew =>
        {
            format!(
                "Refused: your last {n} calls, going round the same few calls, returned nothing you had \
                 not already seen, and `{tool}` with these arguments is one of them. Do not continue: \
                 change approach, or tell the user what is blocking you."
            )
        }
        (DetectorId::GenericRepeat, Level::Warning) => format!(
            "Loop warning: you are calling `{tool}` with the same arguments again. {runs} the \
             identical result, and no other call returned anything new in between. If nothing \
             changes, repeating it will return the same: change the arguments, try a different \
             approach, or answer with what you already know.",
            runs = match finding.ran {
                1 => "Its last run returned".to_owned(),
                ran => format!("Its last {ran} runs returned"),
            },
        ),
        (DetectorId::GenericRepeat, _) => format!(
            "Refused: `{tool}` has been called with these arguments {n} times without progress \
             ({ran}), and no other call returned anything new in between, so another identical call \
             cannot produce anything new. Do not retry it. Change your approach, or tell the user \
             what you tried and that this step could not be completed.",
            ran = ran_identically(finding.ran, n),
        ),
        (DetectorId::KnownPollNoProgress, Level::Warning) if finding.retry_after_ms.is_some() => {
            format!(
                "Loop warning: the last {n} polls of `{tool}` returned the same status (only the \
                 time changed, if anything). Wait {wait} before polling it again: a poll that \
                 comes sooner will be refused. Meanwhile do other work, or stop polling and \
                 report its current state.",
                wait = duration(finding.retry_after_ms.unwrap_or(0.0)),
            )
        }
        (DetectorId::KnownPollNoProgress, Level::Critical) if finding.basis == Basis::TooSoon => {
            format!(
                "Refused: `{tool}` was polled too soon. Its last {n} polls returned the same status \
                 (only the time changed, if anything), so the next poll has to wait: it may be \
                 polled again in {wait}. Meanwhile do other work, or stop polling and report its \
                 current state.",
                wait = duration(finding.retry_after_ms.unwrap_or(0.0)),
            )
        }
        (DetectorId::KnownPollNoProgress, Level::Warning) => format!(
            "Loop warning: the last {n} polls of `{tool}` returned the same status. Nothing has \
             changed since. Wait longer before polling again, check it another way, or stop polling \
             and report its current state."
        ),
        (DetectorId::KnownPollNoProgress, _) => format!(
            "Refused: the last {n} polls of `{tool}` returned the same status, with no progress. Stop \
             polling. Report the current state to the user, or act on the process (inspect its logs, \
             stop or restart it)."
        ),
        (DetectorId::PingPong, Level::Warning) => format!(
            "Loop warning: you have been alternating between {pair} for {n} calls. If their results \
             are not changing, going back and forth will not help: decide what information is still \
             missing and get it a different way, or answer with what you have.",
            pair = pair(tool, finding.partner_tool.as_deref()),
        ),
        (DetectorId::PingPong, _) => format!(
            "Refused: alternating between {pair} has returned the same results on both sides for {n} \
             calls. Do not continue it: change approach, or tell the user what is blocking you.",
            pair = pair(tool, finding.partner_tool.as_deref()),
        ),
        (DetectorId::ArgumentChurn, _) => format!(
            "Loop warning: `{tool}` keeps cycling a few argument patterns that all return one \
             unchanging outcome ({n} calls). This tool call remains allowed, but the churn is not \
             progress: change approach or report what is blocking you."
        ),
        (DetectorId::UnknownToolRepeat, _) => {
            let formatting = if finding.basis == Basis::ModelFormatting {
                " Its name contains chat-template formatting (`<|…|>`): call tools by their plain \
                 names only."
            } else {
                ""
            };
            format!(
                "Refused: the tool `{tool}` does not exist here: {n} calls to it were reported \
                 missing or refused.{formatting} Do not call it again. Use only the tools you were \
                 given, or answer without this tool."
            )
        }
        (DetectorId::GlobalCircuitBreaker, _) if finding.basis == Basis::RefusedInARow => format!(
            "Stopped: the last {n} tool calls of this run were all refused. The run is ending now. \
             Give your final answer from what you already know, and say plainly which part of the \
             task could not be completed."
        ),
        (DetectorId::GlobalCircuitBreaker, _) => format!(
            "Stopped: `{tool}` has been called with the same arguments {n} times without progress \
             ({ran}), with nothing new from other calls. The run is ending now. Give your final \
             answer from what you already know, and say plainly which part of the task could not \
             be completed.",
            ran = ran_identically(finding.ran, n),
        ),
        (DetectorId::Cycle, Level::Warning) => format!(
            "Loop warning: your last {n} calls go round the same sequence of tool calls, ending with \
             `{tool}`. If the answers are not changing, going round again will not help: decide what \
             is still missing and get it another way, or answer with what you have."
        ),
        (DetectorId::Cycle, _) => format!(
            "Refused: the same sequence of tool calls ending with `{tool}` has repeated for {n} calls \
             with identical results at every step. Do not go round again: change approach, or tell \
             the user what is blocking you."
        ),
        (DetectorId::Stall, Level::Warning) => format!(
            "Loop warning: the last {n} calls of `{tool}`, each with {different}, all returned the \
             identical result. New arguments can still find something, but if this answer keeps \
             coming back, try a different tool or approach, or tell the user what you found.",
            different = different_arguments(finding),
        ),
        (DetectorId::Stall, _) => format!(
            "Refused: `{tool}` was already called with these arguments, and its last {n} calls, with \
             {different}, all returned the identical result. Asking again will return it again. \
             Use what you already have, try another tool or approach, or tell the user what you \
             found and what you could not find.",
            different = different_arguments(finding),
        ),
        (DetectorId::ErrorRepeat, Level::Warning) => format!(
            "Loop warning: the last {n} calls of `{tool}` failed with the same error, whatever their \
             arguments{varied}. Read the error message and fix its cause before calling the tool \
             again, or try something else.",
            varied = match finding.varied.as_slice() {
                [] => String::new(),
                names => format!(" (this time {} changed)", name_list(names)),
            },
        ),
        (DetectorId::ErrorRepeat, _) => format!(
            "Refused: `{tool}` already failed with these arguments, with the error that its last {n} \
             calls all failed with. Retrying will fail the same way. Do not call it again until its \
             cause is fixed; otherwise report the failure to the user."
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
        (DetectorId::TransientFailure, Level::Warning) if finding.basis == Basis::Unavailable => {
            format!(
                "`{tool}` has been failing with transient errors for {failing} ({n} tries): the \
                 service is unavailable. Tell the user it is unavailable and what you could not do; \
                 do not call it again now.",
                failing = duration(finding.failing_ms.unwrap_or(0.0)),
            )
        }
        (DetectorId::TransientFailure, Level::Warning) => format!(
            "`{tool}` failed with a transient error (a rate limit, an overloaded or unavailable \
             service, a dropped connection): an outage, not a loop. Wait {wait} before calling it \
             again (it has failed this way {n} time{s} in a row); a retry that comes sooner will be \
             refused.",
            wait = duration(finding.retry_after_ms.unwrap_or(0.0)),
            s = if n == 1 { "" } else { "s" },
        ),
        (DetectorId::TransientFailure, _) if finding.basis == Basis::Unavailable => format!(
            "Refused: `{tool}` has been failing with transient errors for {failing} ({n} tries): the \
             service is unavailable. Tell the user it is unavailable and what you could not do; do \
             not retry it now.",
            failing = duration(finding.failing_ms.unwrap_or(0.0)),
        ),
        (DetectorId::TransientFailure, _) => format!(
            "Refused: `{tool}` failed with a transient error and was asked to wait before the next \
             try; this retry came too soon. It may be called again in {wait}. Meanwhile work with \
             what you have.",
            wait = duration(finding.retry_after_ms.unwrap_or(0.0)),
        ),
        (DetectorId::SharedCause, _) => {
            let (what, problem) = match finding.cause {
                Some(SharedCause::Unauthorized) => (
                    "401 Unauthorized, an invalid key or an expired token",
                    "the credentials are the problem",
                ),
                Some(SharedCause::Forbidden) => {
                    ("permission denied (403)", "the permissions are the problem")
                }
                Some(SharedCause::DiskFull) => ("no space left on device", "the disk is full"),
                Some(SharedCause::ConnectionRefused) => (
                    "connection refused",
                    "the service they reach is not running or not reachable",
                ),
                Some(SharedCause::UnknownHost) => (
                    "a host name that does not resolve",
                    "the host name or the network is the problem",
                ),
                None => ("the same error", "one cause is the problem"),
            };
            format!(
                "Loop warning: {n} different tools failed with {what}: {problem}, not the tools. \
                 Trying more tools will fail the same way; fix the cause, or tell the user what \
                 is needed."
            )
        }
        (DetectorId::PostCompactionLoop, _) => format!(
            "Stopped: after the conversation was compacted, `{tool}` was called {n} times in a row with the \
             same arguments and got the same result, so the loop from before compaction has resumed. The \
             run is ending now. Give your final answer from what you already know."
        ),
    }
}

/// The warning sent with a result when the identical next call would be refused, quoting the
/// start of that result (`quote`) where the record had one.
pub fn forecast(finding: &Finding, tool: &str, quote: Option<&str>) -> String {
    let n = finding.count;
    let ran = finding.ran;
    let same_args = format!("calling `{tool}` again with these same arguments");
    let (what, reason) = match finding.detector {
        DetectorId::GenericRepeat => match finding.basis {
            Basis::DespiteChanges => (
                format!("{same_args}, before something it depends on changes,"),
                format!(
                    "its last {ran} runs returned the identical result, although {}",
                    other_calls_changed(finding.changes)
                ),
            ),
            Basis::SameChange => (
                format!("making the same change again by {same_args}"),
                format!(
                    "its last {ran} runs in a row returned the same result (numbers aside), each \
                     making the same change again"
                ),
            ),
            Basis::NothingChangedSince => (
                same_args,
                format!("its last {ran} runs returned the identical result and nothing since could change it"),
            ),
            Basis::NothingNewSince => (
                same_args,
                format!("its last {ran} runs returned the identical result and no call since returned anything new"),
            ),
            _ => (
                same_args,
                format!("its last {ran} runs returned the identical result with nothing new from other calls"),
            ),
        },
        DetectorId::KnownPollNoProgress => (
            format!("polling `{tool}` again"),
            format!("its last {n} polls returned the same status"),
        ),
        DetectorId::UnknownToolRepeat => (
            format!("calling `{tool}` again, with any arguments,"),
            format!("{n} calls to it were reported missing or refused"),
        ),
        DetectorId::GlobalCircuitBreaker if finding.basis == Basis::RefusedInARow => (
            "another refused call".to_owned(),
            format!("the last {n} calls were all refused"),
        ),
        DetectorId::GlobalCircuitBreaker => (
            same_args,
            format!("{n} calls of it made no progress"),
        ),
        DetectorId::ErrorRepeat => (
            same_args,
            format!("it already failed with these arguments, with the error its last {n} calls all failed with"),
        ),
        DetectorId::Stall => (
            same_args,
            format!("it already answered them, with the result its last {n} calls all returned"),
        ),
        DetectorId::MaxTurns => (
            "calling any tool again".to_owned(),
            format!("the run has used its {n} tool calls"),
        ),
        DetectorId::ToolCap => (
            same_args,
            format!("its limit of {} calls in its time window is reached", finding.threshold),
        ),
        DetectorId::PingPong | DetectorId::Cycle if finding.basis == Basis::NothingNew => (
            same_args,
            format!("{n} calls in a row returned nothing new"),
        ),
        DetectorId::PingPong
        | DetectorId::Cycle
        | DetectorId::PostCompactionLoop
        | DetectorId::ArgumentChurn
        | DetectorId::TransientFailure
        | DetectorId::SharedCause => (same_args, format!("{n} calls made no progress")),
    };
    let consequence = if finding.level == Level::CircuitBreak {
        "will end this run"
    } else {
        "will be refused"
    };
    let returned = quote.map_or(String::new(), |q| format!(" It returned: \"{q}\"."));
    format!(
        "Loop warning: {what} {consequence}, because {reason}.{returned} Use this result, change \
         your approach, or finish with what you know."
    )
}

/// A warning written when a record comes back (`for_finding`'s text), quoting the start of the
/// result in hand (`quote`).
pub fn record_warning(finding: &Finding, tool: &str, quote: Option<&str>) -> String {
    let message = for_finding(finding, tool);
    match quote {
        Some(quote) => format!("{message} It returned: \"{quote}\"."),
        None => message,
    }
}

/// `preset: "openclaw"`: the text for a finding about a call to `tool` (OpenClaw's normalised
/// name). These carry the phrases OpenClaw's prompts and log scrapers key on ("WARNING",
/// "CRITICAL", the count as "N times", "identical outcomes", "no progress", "ping-pong loop",
/// "global circuit breaker", "tool call remains allowed").
pub fn openclaw(
    detector: DetectorId,
    level: Level,
    n: u32,
    tool: &str,
    detail: &OpenClawDetail,
) -> String {
    let critical = level != Level::Warning;
    let partner = match detail {
        OpenClawDetail::Partner(partner) => partner.as_str(),
        _ => "another call",
    };
    match (detector, critical) {
        (DetectorId::GenericRepeat, false) => format!(
            "WARNING: {tool} has now been called {n} times with identical arguments. If nothing is \
             changing, stop repeating it and report the task as failed."
        ),
        (DetectorId::GenericRepeat, true) => format!(
            "CRITICAL: {tool} gave identical outcomes {n} times for identical arguments. This call is \
             blocked so the loop cannot run on; take a different approach."
        ),
        (DetectorId::KnownPollNoProgress, false) => format!(
            "WARNING: {tool} was polled {n} times with identical arguments and no progress. Wait \
             longer between checks, or report the process as stuck."
        ),
        (DetectorId::KnownPollNoProgress, true) => format!(
            "CRITICAL: {tool} was polled {n} times with identical arguments and no progress. This \
             polling loop is stuck, so the call is blocked."
        ),
        (DetectorId::PingPong, false) => format!(
            "WARNING: {tool} and {partner} have alternated {n} times in a row. That is a ping-pong \
             loop; stop retrying and report the task as failed."
        ),
        (DetectorId::PingPong, true) => format!(
            "CRITICAL: {tool} and {partner} alternated {n} times in a row with no progress. This \
             ping-pong loop is stuck, so the call is blocked."
        ),
        (DetectorId::UnknownToolRepeat, _) => {
            let missing = match detail {
                OpenClawDetail::MissingTool(name) => name.as_str(),
                _ => tool,
            };
            format!(
                "CRITICAL: the unavailable tool {missing} was attempted {n} times. Stop calling it \
                 and answer without it."
            )
        }
        (DetectorId::ArgumentChurn, _) => {
            let variants = match detail {
                OpenClawDetail::Variants(v) => *v,
                _ => 0,
            };
            format!(
                "WARNING: {tool} has cycled through {variants} repeated argument patterns with one \
                 unchanging outcome, {n} times in all. This churn counts as stalled work, but this \
                 tool call remains allowed."
            )
        }
        (DetectorId::PostCompactionLoop, _) => format!(
            "CRITICAL: after the context was compacted, {tool} repeated identical arguments with \
             identical results {n} times. Compaction did not break the loop, so the run stops."
        ),
        _ => format!(
            "CRITICAL: {tool} repeated identical no-progress outcomes {n} times. The global circuit \
             breaker stops this run."
        ),
    }
}

/// `preset: "openclaw"`: added when a refusal stops the run because an earlier one already did not break the loop.
pub const OPENCLAW_SECOND_CRITICAL: &str =
    " A critical loop was already refused earlier in this run, so the run stops now.";

/// "different arguments", or the names of the ones that changed: "a different `date`",
/// "different `date` and `origin`".
fn different_arguments(finding: &Finding) -> String {
    match finding.varied.as_slice() {
        [] => "different arguments".to_owned(),
        [one] => format!("a different `{one}`"),
        names => format!("different {}", name_list(names)),
    }
}

/// "`a`", "`a` and `b`", "`a`, `b` and `c`".
fn name_list(names: &[String]) -> String {
    let mut list = String::new();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            list.push_str(if i + 1 == names.len() { " and " } else { ", " });
        }
        list.push('`');
        list.push_str(name);
        list.push('`');
    }
    list
}

/// "N other calls changed something" with the count spelled for one.
fn other_calls_changed(changes: u32) -> String {
    match changes {
        0 => "other calls changed things".to_owned(),
        1 => "another call changed something".to_owned(),
        n => format!("{n} other calls changed something"),
    }
}

/// What the `count` calls did: "5 ran and returned the identical result each time, 2 were
/// refused".
fn ran_identically(ran: u32, count: u32) -> String {
    let refused = count.saturating_sub(ran);
    let ran_part = match ran {
        0 => "none ran".to_owned(),
        1 => "1 ran".to_owned(),
        ran => format!("{ran} ran and returned the identical result each time"),
    };
    match refused {
        0 => ran_part,
        1 => format!("{ran_part}, 1 was refused"),
        refused => format!("{ran_part}, {refused} were refused"),
    }
}

/// "`a` and `b`", or "two calls of `a` with different arguments" when both sides are one tool.
fn pair(tool: &str, partner: Option<&str>) -> String {
    match partner {
        Some(partner) if partner == tool => {
            format!("two calls of `{tool}` with different arguments")
        }
        Some(partner) => format!("`{tool}` and `{partner}`"),
        None => format!("`{tool}` and another tool"),
    }
}

/// A duration for the model: "2 seconds", "1.5 seconds", "5 minutes" (rounded up to a tenth of a
/// second, or to a minute from 2 minutes on).
fn duration(ms: f64) -> String {
    let seconds = (ms / 100.0).ceil() / 10.0;
    if seconds >= 120.0 {
        format!("{} minutes", display((seconds / 60.0).ceil()))
    } else if seconds == 1.0 {
        "1 second".to_owned()
    } else {
        format!("{} seconds", display(seconds))
    }
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
/// `userMessage`): what happened, in plain words true to the cause (a loop of one call, two calls
/// alternating, a sequence, a poll, an error, a missing tool, a service that is down, a rate
/// limit), and what the person can do; no instruction meant for the model. `detector` stopped the
/// run; `cause` is the loop it stopped (for `global_circuit_breaker`, what the call would have been
/// refused for).
pub fn for_user(
    detector: DetectorId,
    cause: &StopCause,
    tool: &str,
    count: u32,
    threshold: u32,
) -> String {
    const STOPPED: &str = "The assistant stopped before finishing this request:";
    const ASK_AGAIN: &str = "Ask again with more detail, or in smaller steps, to continue.";
    match (detector, cause.detector) {
        (DetectorId::MaxTurns, _) | (_, DetectorId::MaxTurns) => format!(
            "{STOPPED} it reached its limit of {threshold} tool calls. Ask again, perhaps with a \
             narrower request, to continue."
        ),
        (DetectorId::PostCompactionLoop, _) => format!(
            "{STOPPED} after its earlier conversation was condensed, it went back to repeating \
             the same `{tool}` call ({count} times, with the same result each time). {ASK_AGAIN}"
        ),
        (_, DetectorId::TransientFailure) => format!(
            "{STOPPED} `{tool}` kept failing with temporary errors (the service it reaches seems \
             to be unavailable, overloaded or rate-limited), and retrying it was getting nowhere. \
             This is not a problem with your request: try again later, once the service is back."
        ),
        (_, DetectorId::ToolCap) => format!(
            "{STOPPED} `{tool}` may only be used a limited number of times in a period, and the \
             assistant kept trying to use it past that limit. Try again later, or ask for less at \
             once."
        ),
        (_, DetectorId::UnknownToolRepeat) => format!(
            "{STOPPED} it kept trying to use a tool that is not available here (`{tool}`). Ask \
             again in a way the tools it has can answer, or have its setup checked."
        ),
        (_, DetectorId::PingPong) => format!(
            "{STOPPED} it kept going back and forth between {pair} without getting anywhere \
             ({count} calls that brought nothing new), so the loop was ended. {ASK_AGAIN}",
            pair = pair(tool, cause.partner_tool.as_deref()),
        ),
        (_, DetectorId::Cycle) => format!(
            "{STOPPED} it kept going round the same few tool calls (the last one `{tool}`) \
             without getting anywhere ({count} calls that brought nothing new), so the loop was \
             ended. {ASK_AGAIN}"
        ),
        (_, DetectorId::KnownPollNoProgress) => format!(
            "{STOPPED} it kept checking on `{tool}`, whose status did not change ({count} checks), \
             so the waiting was ended. What it waits for may be stuck: check on it, or ask again \
             later."
        ),
        (_, DetectorId::ErrorRepeat) => format!(
            "{STOPPED} `{tool}` kept failing with the same error ({count} calls), so the loop was \
             ended. The cause of the error needs fixing first; ask again once it is, or with \
             different instructions."
        ),
        (_, DetectorId::Stall) => format!(
            "{STOPPED} it kept calling `{tool}` with different inputs that all returned the same \
             answer ({count} calls), so the loop was ended. {ASK_AGAIN}"
        ),
        (_, DetectorId::GlobalCircuitBreaker) if cause.basis == Basis::RefusedInARow => format!(
            "{STOPPED} the last {count} tool calls it tried were all refused, so the run was \
             ended. {ASK_AGAIN}"
        ),
        _ => format!(
            "{STOPPED} it kept repeating the same `{tool}` call without getting anywhere ({count} \
             calls that brought nothing new), so the loop was ended. {ASK_AGAIN}"
        ),
    }
}

/// What a host may put in the model's context in place of a tool result that repeats, identically,
/// the result of the earlier call `call_id` (a record verdict's `sameAs`): that result stays whole
/// in the context, so nothing is lost.
pub fn same_result_as(call_id: &str) -> String {
    format!("Same result as call {call_id} (identical; not repeated here).")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_result_as_names_the_earlier_call() {
        assert_eq!(
            same_result_as("call_7"),
            "Same result as call call_7 (identical; not repeated here)."
        );
    }

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

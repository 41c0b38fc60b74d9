//! The event list: the watched SM's newest events, newest first, one line each.

use std::rc::Rc;

use warplab_lab::{Event, EventKind, Queue};
use yew::prelude::*;

use crate::components::animation::Term;

/// Properties of [`EventLog`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct EventLogProps {
    /// The events, oldest first.
    pub events: Rc<Vec<Event>>,
    /// The SM they are of.
    pub watch: u32,
    /// Events recorded but not sent since the run started.
    pub dropped: u64,
    /// The cycle the run has reached.
    #[prop_or_default]
    pub run_cycle: u64,
    /// Whether the run is at full speed or finished, when nothing is
    /// recorded (only stepping and a chosen speed record events).
    #[prop_or_default]
    pub unrecorded: bool,
}

/// The newest events as lines of text.
#[component]
pub fn EventLog(props: &EventLogProps) -> Html {
    let title = format!("Events of SM {} (newest first)", props.watch);
    html! {
        <details class="event-log" open=true>
            <summary data-tap-explains="" title="What the watched SM did, cycle by cycle, and its requests in the memory system. Recorded while playing at a chosen speed or stepping; click an SM to watch it.">
                { title.clone() }
                if props.dropped > 0 {
                    <span class="hint">{ format!(" · {} more not listed", props.dropped) }</span>
                }
            </summary>
            { gap(props) }
            if props.events.is_empty() && !gap_shown(props) {
                <p class="hint" data-testid="no-events">{ "No events yet: step, or play at a chosen speed." }</p>
            } else {
                // It scrolls, so the keyboard can reach it to scroll it.
                <ol class="events" data-testid="events" reversed=true tabindex="0" aria-label={title}>
                    { for props.events.iter().rev().map(|event| html! { <li>{ describe(event) }</li> }) }
                </ol>
            }
        </details>
    }
}

/// When the run went on past the newest event without recording (at full
/// speed, or to its end), where the list stops and why, so an early cycle
/// is not read as where the run is.
fn gap(props: &EventLogProps) -> Html {
    if !gap_shown(props) {
        return html! {};
    }
    let listed_to = props.events.last().map(|event| event.cycle);
    let listed = listed_to.map_or("No events were recorded".to_owned(), |c| format!("Listed up to cycle {c}"));
    html! {
        <p class="note" data-testid="events-gap">
            { format!("{listed}; the run went on to cycle {} at full speed, which records no events \
               (step, or play at a chosen speed, to record them).", crate::format::count(props.run_cycle)) }
        </p>
    }
}

/// Whether the run went on past the newest event listed without recording.
fn gap_shown(props: &EventLogProps) -> bool {
    let behind = props.events.last().is_none_or(|event| event.cycle < props.run_cycle);
    props.unrecorded && behind && props.run_cycle > 0
}

/// One event in words.
pub fn describe(event: &Event) -> String {
    let what = match &event.kind {
        EventKind::CtaLaunched { sm, kernel, cta, slot } => {
            format!("SM {sm}: CTA {cta} of kernel {kernel} launched into slot {slot}")
        }
        EventKind::CtaFinished { sm, kernel, cta, slot } => {
            format!("SM {sm}: CTA {cta} of kernel {kernel} finished, slot {slot} freed")
        }
        EventKind::Issued { sm, scheduler, warp, pc, opcode } => {
            format!("SM {sm} scheduler {scheduler}: warp {warp} issued {opcode} (PC {pc:#x})")
        }
        // The legend's words for the state, so the list and the colours agree.
        EventKind::WarpState { sm, warp, state } => format!("SM {sm}: warp {warp} now {}", Term::Warp(*state).name()),
        EventKind::MshrAllocated { sm, address } => format!("SM {sm}: L1 miss on {address:#x} took an MSHR entry"),
        EventKind::MshrFreed { sm, address } => format!("SM {sm}: data for {address:#x} arrived, MSHR entry freed"),
        EventKind::Entered { queue, request, address, .. } => {
            format!("request {request} ({address:#x}) entered {}", queue_words(*queue))
        }
        EventKind::Left { queue, request, address, .. } => {
            format!("request {request} ({address:#x}) left {}", queue_words(*queue))
        }
    };
    format!("cycle {}: {what}", event.cycle)
}

fn queue_words(queue: Queue) -> &'static str {
    match queue {
        Queue::RequestNetwork => "the request crossbar",
        Queue::L2 => "the L2 slice's queue",
        Queue::Dram => "DRAM",
        Queue::ReplyNetwork => "the reply crossbar",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_as_sentences_with_their_cycle() {
        let issued = EventKind::Issued { sm: 3, scheduler: 1, warp: 5, pc: 0x90, opcode: "LDG.E".into() };
        assert_eq!(
            describe(&Event { cycle: 77, kind: issued }),
            "cycle 77: SM 3 scheduler 1: warp 5 issued LDG.E (PC 0x90)"
        );
        let left = EventKind::Left { queue: Queue::Dram, request: 4, source: 0, address: 0x1000 };
        assert_eq!(describe(&Event { cycle: 9, kind: left }), "cycle 9: request 4 (0x1000) left DRAM");
    }
}

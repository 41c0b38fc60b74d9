//! Follow one request: an SM's next L1 read miss, or a chosen load's, hop
//! by hop through the memory system (its MSHR, the request crossbar, its L2
//! slice, DRAM, the reply crossbar, back to the L1), each hop with its core
//! cycle, read from the timing model's event stream, as Ripes follows one
//! instruction through its pipeline.
//!
//! Central decision: a [`Follower`] only reads events. Whoever drives the
//! simulation records them (an [`crate::EventWindow`] on the SM; the
//! memory side's events are recorded for every request) and hands them over
//! in order, so following a request changes no cycle of the run.
//!
//! The events name a request by its slot in the table of requests in flight
//! from the moment it enters the crossbar; before that the miss is known by
//! its sector (or line) address, and an L2 miss's fill by the address the
//! slice fetches, so those hops are matched by address.
//!
//! A chosen load ([`Follower::for_load`]) is followed from its issue: the
//! `Issued` event names the warp and PC, and [`loads`] says which sectors
//! that warp's load reads, so the miss followed is the SM's first new MSHR
//! entry for one of them.
//!
//! ```
//! use warplab_lab::follow::{Follower, Step};
//! use warplab_lab::{Cycle, EventWindow, GenSpec, GeneratedWorkload, Simulation, SimOptions, preset_config};
//!
//! let (_, config) = preset_config("mdm-pascal-28sm")?;
//! let spec: GenSpec = "vecadd:size=1".parse()?;
//! let mut simulation = Simulation::new(&config, SimOptions::default(), GeneratedWorkload::new(&spec, &config)?);
//! simulation.set_event_window(Some(EventWindow { cycles: 0..u64::MAX, sms: 0..1, max_events: 100_000 }));
//! let mut follower = Follower::new(&config, 0);
//! while !follower.done() && !simulation.progress().finished {
//!     simulation.run_until(Cycle(simulation.progress().cycle.0 + 100));
//!     simulation.take_events().events.iter().for_each(|event| follower.observe(event));
//! }
//! let journey = follower.journey().expect("SM 0 missed in its L1");
//! assert_eq!(journey.hops.first().map(|hop| hop.step), Some(Step::L1Miss));
//! assert_eq!(journey.hops.last().map(|hop| hop.step), Some(Step::MshrFreed));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod loads;

use serde::{Deserialize, Serialize};
use warplab_config::GpuConfig;
use warplab_sim::snapshot::SmSnapshot;
use warplab_sim::{Event, EventKind, Queue};
use warplab_uarch::address_map::AddressMap;

use self::loads::SharedLoadBook;

/// Bytes an L2 (or L1) miss of a sectored cache fetches: one sector.
const SECTOR_BYTES: u64 = 32;

/// One request's way through the memory system so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journey {
    /// The SM whose L1 missed.
    pub sm: u32,
    /// The sector (or line) address the miss asks for.
    pub address: u64,
    /// The L2 slice the address belongs to.
    pub slice: u32,
    /// The DRAM channel behind that slice.
    pub channel: u32,
    /// The DRAM bank within the channel.
    pub bank: u32,
    /// The hops so far, in the order they happened (cycles never decrease).
    pub hops: Vec<Hop>,
    /// The chosen load whose sector this is, when a load was chosen
    /// ([`Follower::for_load`]); its issue is the first hop.
    pub load: Option<FollowedLoad>,
}

/// The load instruction a followed request reads for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FollowedLoad {
    /// Its PC.
    pub pc: u64,
    /// The warp slot that issued it.
    pub warp: u32,
    /// Its CTA's index in the grid.
    pub cta: u64,
}

/// One hop: what happened to the request, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hop {
    /// The core cycle.
    pub cycle: u64,
    /// What happened.
    pub step: Step,
}

/// The steps of an L1 read miss, in the order they come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    /// The chosen load was issued (only when a load was chosen).
    Issued,
    /// The L1 missed and an MSHR entry was taken for the sector.
    L1Miss,
    /// The request left the L1's miss queue into the request crossbar.
    RequestCrossbar,
    /// It reached its L2 slice's input queue.
    AtL2Slice,
    /// The slice looked it up in the L2 (a hit, or a miss waiting for a fill).
    L2Lookup,
    /// The slice's fill of the sector went to DRAM.
    ToDram,
    /// The fill's data came back from DRAM.
    FromDram,
    /// The reply entered the reply crossbar.
    ReplyCrossbar,
    /// The reply reached the SM.
    AtSm,
    /// The L1 took the data and freed the MSHR entry: the loads waiting on
    /// it can go on.
    MshrFreed,
}

/// Reads events in order and follows the first L1 read miss of one SM, or
/// of one chosen load on it.
#[derive(Debug, Clone)]
pub struct Follower {
    sm: u32,
    map: AddressMap,
    /// Bytes an L2 miss fetches (a sector, or a non-sectored L2's line).
    fetch_bytes: u64,
    journey: Option<Journey>,
    /// The request's slot in the table of requests in flight, once known.
    request: Option<u32>,
    /// The chosen load, if one was chosen.
    load: Option<ChosenLoad>,
}

/// A chosen load: its PC, where its sectors are read from, and its issues
/// seen so far whose sectors may yet miss.
#[derive(Debug, Clone)]
struct ChosenLoad {
    pc: u64,
    book: SharedLoadBook,
    /// Bytes an L1 miss fetches: a sector, or a non-sectored L1's line.
    l1_fetch_bytes: u64,
    /// Each warp slot's CTA on the SM (launch index, grid index), as last
    /// placed ([`Follower::place`]).
    ctas: Vec<Option<(u32, u64)>>,
    /// Issues of the load not yet matched to a miss, oldest first.
    issues: Vec<Issue>,
}

/// One issue of the chosen load.
#[derive(Debug, Clone)]
struct Issue {
    cycle: u64,
    load: FollowedLoad,
    sectors: Vec<u64>,
}

impl Journey {
    /// The last step so far.
    pub fn last_step(&self) -> Option<Step> {
        self.hops.last().map(|hop| hop.step)
    }

    /// Whether the data is back in the L1.
    pub fn done(&self) -> bool {
        self.last_step() == Some(Step::MshrFreed)
    }

    /// Whether the L2 had the data: the reply left with no DRAM hop. `None`
    /// until the reply has left the slice.
    pub fn l2_hit(&self) -> Option<bool> {
        let replied = self.hops.iter().any(|hop| hop.step == Step::ReplyCrossbar);
        replied.then(|| !self.hops.iter().any(|hop| hop.step == Step::FromDram))
    }

    fn push(&mut self, cycle: u64, step: Step) {
        self.hops.push(Hop { cycle, step });
    }
}

impl Follower {
    /// A follower of SM `sm`'s next L1 read miss on `config`'s GPU.
    pub fn new(config: &GpuConfig, sm: u32) -> Self {
        let l2 = &config.memory.l2;
        let fetch_bytes = if l2.is_sectored() { SECTOR_BYTES } else { u64::from(l2.line_size_bytes.max(1)) };
        Self { sm, map: AddressMap::for_gpu(config), fetch_bytes, journey: None, request: None, load: None }
    }

    /// A follower of the load at `pc` on SM `sm`: its next issue whose sector
    /// misses in the L1, the sectors read from `book` (which the workload
    /// the simulator reads must fill, [`loads::booked`]). The SM's warps must
    /// be placed ([`Follower::place`]) before the events of each stretch of
    /// cycles are observed.
    pub fn for_load(config: &GpuConfig, sm: u32, pc: u64, book: SharedLoadBook) -> Self {
        let l1_fetch_bytes = match &config.l1.dl1 {
            Some(l1) if !l1.is_sectored() => u64::from(l1.line_size_bytes.max(1)),
            _ => SECTOR_BYTES,
        };
        let load = ChosenLoad { pc, book, l1_fetch_bytes, ctas: Vec::new(), issues: Vec::new() };
        Self { load: Some(load), ..Self::new(config, sm) }
    }

    /// Whether the follower waits for the chosen load's miss and so needs
    /// the SM's warps placed.
    pub fn wants_placement(&self) -> bool {
        self.load.is_some() && self.journey.is_none()
    }

    /// Notes which CTA each warp slot of the SM holds, from `sm`'s snapshot.
    pub fn place(&mut self, sm: &SmSnapshot) {
        let Some(load) = &mut self.load else { return };
        let cta_of = |slot: u16| sm.ctas.iter().find(|cta| cta.slot == slot).map(|cta| (cta.kernel, cta.index));
        load.ctas = sm.warps.iter().map(|warp| cta_of(warp.cta_slot)).collect();
    }

    /// The journey so far; `None` before the SM missed in its L1.
    pub fn journey(&self) -> Option<&Journey> {
        self.journey.as_ref()
    }

    /// Whether the request is back in the L1.
    pub fn done(&self) -> bool {
        self.journey.as_ref().is_some_and(Journey::done)
    }

    /// Takes the next event of the stream.
    pub fn observe(&mut self, event: &Event) {
        let cycle = event.cycle;
        let Some(journey) = &mut self.journey else {
            self.start(event);
            return;
        };
        let fill_address = journey.address & !(self.fetch_bytes - 1);
        let last = journey.last_step();
        let step = match (&event.kind, last) {
            (_, Some(Step::MshrFreed)) => None,
            (EventKind::Entered { queue: Queue::RequestNetwork, source, address, request }, Some(Step::L1Miss))
                if *source == self.sm && *address == journey.address =>
            {
                self.request = Some(*request);
                Some(Step::RequestCrossbar)
            }
            (EventKind::Entered { queue, request, .. }, _) if Some(*request) == self.request => match queue {
                Queue::L2 => Some(Step::AtL2Slice),
                Queue::ReplyNetwork => Some(Step::ReplyCrossbar),
                Queue::RequestNetwork | Queue::Dram => None,
            },
            (EventKind::Left { queue: Queue::L2, request, .. }, _) if Some(*request) == self.request => {
                Some(Step::L2Lookup)
            }
            (EventKind::Left { queue: Queue::ReplyNetwork, request, .. }, _) if Some(*request) == self.request => {
                Some(Step::AtSm)
            }
            // The slice's fill of the sector: sent when this request missed,
            // or already on its way for another one it then waits for.
            (EventKind::Entered { queue: Queue::Dram, address, .. }, Some(Step::AtL2Slice | Step::L2Lookup))
                if *address == fill_address =>
            {
                Some(Step::ToDram)
            }
            (EventKind::Left { queue: Queue::Dram, address, .. }, Some(Step::L2Lookup | Step::ToDram))
                if *address == fill_address =>
            {
                Some(Step::FromDram)
            }
            (EventKind::MshrFreed { sm, address }, Some(Step::AtSm))
                if *sm == self.sm && *address == journey.address =>
            {
                Some(Step::MshrFreed)
            }
            _ => None,
        };
        if let Some(step) = step {
            journey.push(cycle, step);
        }
    }

    /// Starts the journey at the SM's first new MSHR entry, or with a chosen
    /// load at the first one for a sector of one of its issues.
    fn start(&mut self, event: &Event) {
        let sm = self.sm;
        let (address, issue) = match (&event.kind, &mut self.load) {
            (EventKind::Issued { sm: at, warp, pc, .. }, Some(load)) if *at == sm && *pc == load.pc => {
                load.note_issue(event.cycle, *warp);
                return;
            }
            (&EventKind::MshrAllocated { sm: at, address }, Some(load)) if at == sm => {
                let Some(issue) = load.take_issue(address) else { return };
                (address, Some(issue))
            }
            (&EventKind::MshrAllocated { sm: at, address }, None) if at == sm => (address, None),
            _ => return,
        };
        let at = self.map.decode(address);
        let mut journey = Journey {
            sm,
            address,
            slice: self.map.sub_partition(address),
            channel: at.channel,
            bank: at.bank,
            hops: Vec::new(),
            load: issue.as_ref().map(|issue| issue.load),
        };
        if let Some(issue) = issue {
            journey.push(issue.cycle, Step::Issued);
        }
        journey.push(event.cycle, Step::L1Miss);
        self.journey = Some(journey);
    }
}

impl ChosenLoad {
    /// Issues of the load kept while none has missed (an L1 hit leaves its
    /// issue here); the oldest are dropped first.
    const MAX_ISSUES: usize = 256;

    /// Notes an issue of the load by warp slot `warp`, with its sectors (none
    /// if the warp's CTA or its load is not in the book).
    fn note_issue(&mut self, cycle: u64, warp: u32) {
        let Some(&Some((kernel, cta))) = self.ctas.get(warp as usize) else { return };
        let book = self.book.borrow();
        let Some(sectors) = book.sectors(kernel, cta, warp, self.pc) else { return };
        let sectors = sectors.to_vec();
        drop(book);
        // The book holds a warp's sectors over every run of the load, so of
        // one warp's issues only the newest is kept: its data is the one the
        // warp waits for next.
        self.issues.retain(|issue| issue.load.warp != warp);
        if self.issues.len() == Self::MAX_ISSUES {
            self.issues.remove(0);
        }
        self.issues.push(Issue { cycle, load: FollowedLoad { pc: self.pc, warp, cta }, sectors });
    }

    /// The oldest issue one of whose sectors the L1 miss at `address` (a
    /// sector, or a line) fetches.
    fn take_issue(&mut self, address: u64) -> Option<Issue> {
        let fetched = |sector: &u64| sector & !(self.l1_fetch_bytes - 1) == address;
        let index = self.issues.iter().position(|issue| issue.sectors.iter().any(fetched))?;
        Some(self.issues.remove(index))
    }
}

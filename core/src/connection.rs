//! One CQL connection as a sans-IO state machine, in quinn-proto's shape.
//!
//! - Getters: [`Connection::state`], [`Connection::in_flight`], ...
//! - Inputs: [`Connection::handle_bytes`], [`Connection::handle_eof`],
//!   [`Connection::handle_timeout`].
//! - Commands: [`Connection::start`], [`Connection::start_request`], [`Connection::cancel`].
//! - Outputs, drained after every input or command, in this order:
//!   [`Connection::poll_transmit`], [`Connection::poll_timeout`], [`Connection::poll_event`].
//!
//! Time is a `u64` of microseconds passed in by the host; the connection never reads a clock.

use std::collections::{HashSet, VecDeque};

use crate::compression::Compression;
use crate::error::{ProtocolError, Side};
use crate::v5::{FrameDecoder, FrameEncoder};
use crate::frame::{finish_frame, flags, FrameHeader, Opcode, HEADER_LEN};
use crate::message::{self, BatchStatement, BatchType, QueryOptions, ServerError, ServerEvent};
use crate::scylla::ScyllaFeatures;
use crate::wire::{Reader, Writer};

mod deadlines;
mod host_auth;
pub use host_auth::AuthStep;

pub type RequestId = u32;

/// A request that got its stream id when it was started has an id that says which:
/// `[generation u16][0][stream u15]`, so neither the connection nor its session needs a map
/// from ids to streams (a hash insert and remove per request, issue #17). A request started
/// while every stream was taken has bit 15 set (`[counter high][1][counter low]`): it gets a
/// stream later, and is looked for the slow way in the rare case it is cancelled then.
const QUEUED_ID_BIT: RequestId = 0x8000;

/// The stream a request id names, for an id of a request that had its stream from the start.
pub fn stream_of_id(id: RequestId) -> Option<usize> {
    (id & QUEUED_ID_BIT == 0).then_some((id & 0x7FFF) as usize)
}

/// The highest stream id protocol v3+ allows is 32767; negative ids are the server's.
pub const MAX_STREAMS: usize = 32768;

#[derive(Debug, Clone)]
pub struct Config {
    /// The protocol version to speak (4 or 5).
    pub protocol_version: u8,
    pub keyspace: Option<String>,
    pub credentials: Option<Credentials>,
    /// Responses with a longer body are a remote protocol error, caught before buffering.
    pub max_frame_bytes: u32,
    /// Stream ids this connection may use at once; requests beyond it queue.
    pub max_streams: usize,
    pub request_timeout_us: u64,
    /// The whole handshake (OPTIONS to READY, authentication and USE included) must finish
    /// within this long after [`Connection::start`], or the connection closes with
    /// [`CloseReason::HandshakeTimeout`]: a node that accepts TCP and then stays silent must
    /// not hold a pool slot forever.
    pub handshake_timeout_us: u64,
    /// An idle connection sends OPTIONS after this long; 0 disables heartbeats.
    pub heartbeat_interval_us: u64,
    /// A connection with more timed-out, still-unanswered stream ids than this drains.
    pub orphan_limit: usize,
    pub driver_version: String,
    /// LZ4 or Snappy bodies on v4; LZ4 frames on v5 (Snappy is v4 only).
    pub compression: Compression,
    /// A SASL mechanism other than PLAIN; takes precedence over `credentials`.
    pub authenticator: Option<AuthenticatorFactory>,
    /// The host answers each SASL step ([`EventRec::Auth`], [`Connection::auth_answer`]);
    /// takes precedence over `authenticator` and `credentials`.
    pub host_authenticator: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            protocol_version: 4,
            keyspace: None,
            credentials: None,
            max_frame_bytes: 256 * 1024 * 1024,
            max_streams: MAX_STREAMS,
            request_timeout_us: 12_000_000,
            handshake_timeout_us: 10_000_000,
            heartbeat_interval_us: 30_000_000,
            orphan_limit: 1024,
            driver_version: env!("CARGO_PKG_VERSION").to_owned(),
            compression: Compression::None,
            authenticator: None,
            host_authenticator: false,
        }
    }
}

/// A SASL exchange with the server's authenticator. PLAIN (Cassandra's
/// PasswordAuthenticator) is built in through [`Config::credentials`]; anything else plugs in
/// here through [`Config::authenticator`].
pub trait Authenticator: Send {
    /// The first token, given the server's authenticator class from AUTHENTICATE.
    fn initial_response(&mut self, authenticator_class: &str) -> Result<Vec<u8>, String>;
    /// The answer to an AUTH_CHALLENGE.
    fn evaluate_challenge(&mut self, challenge: Option<&[u8]>) -> Result<Vec<u8>, String>;
}

/// Makes one [`Authenticator`] per connection.
#[derive(Clone)]
pub struct AuthenticatorFactory(pub std::sync::Arc<dyn Fn() -> Box<dyn Authenticator> + Send + Sync>);

impl std::fmt::Debug for AuthenticatorFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AuthenticatorFactory")
    }
}

/// SASL PLAIN: `\0username\0password`.
pub struct PlainAuthenticator(pub Credentials);

impl Authenticator for PlainAuthenticator {
    fn initial_response(&mut self, _authenticator_class: &str) -> Result<Vec<u8>, String> {
        let c = &self.0;
        let mut token = Vec::with_capacity(2 + c.username.len() + c.password.len());
        token.push(0);
        token.extend_from_slice(c.username.as_bytes());
        token.push(0);
        token.extend_from_slice(c.password.as_bytes());
        Ok(token)
    }
    fn evaluate_challenge(&mut self, _challenge: Option<&[u8]>) -> Result<Vec<u8>, String> {
        Err("the server sent a SASL challenge, which PLAIN does not expect".into())
    }
}

#[derive(Clone)]
pub struct Credentials {
    pub username: String,
    pub password: String,
}

// The password must never reach a log or an error message.
impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Credentials {{ username: {:?}, password: <redacted> }}", self.username)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum State {
    Idle,
    Options,
    Startup,
    Authenticating,
    UseKeyspace,
    Ready,
    /// Too many orphans: finishes what is in flight, accepts nothing new.
    Draining,
    Closed,
}

/// A request as the host hands it over; everything is borrowed and encoded at once.
pub enum Request<'a> {
    Query { cql: &'a str, values: &'a [u8], options: QueryOptions<'a> },
    Prepare { cql: &'a str, keyspace: Option<&'a str> },
    Execute { id: &'a [u8], result_metadata_id: Option<&'a [u8]>, values: &'a [u8], options: QueryOptions<'a> },
    Batch { kind: BatchType, statements: &'a [BatchStatement<'a>], options: QueryOptions<'a> },
    Register { events: &'a [&'a str] },
}

/// Why a request failed, with everything the host needs to build a clear error.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "lowercase"))]
pub enum RequestError {
    Server(ServerError),
    Timeout { message: String, timeout_ms: u64 },
    /// The connection closed before an answer came. `written`: the request had been handed
    /// to the transport (the server may have applied it); false when it never left this
    /// connection's buffers, so sending it elsewhere cannot apply it twice.
    Closed { message: String, written: bool },
    Protocol { message: String, side: Side, field: &'static str, offset: usize },
}

/// Why the connection closed.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum CloseReason {
    Eof {
        message: String,
    },
    Protocol {
        message: String,
        side: Side,
        field: &'static str,
        offset: usize,
    },
    Auth {
        message: String,
        code: Option<i32>,
    },
    Handshake {
        message: String,
        error: Option<ServerError>,
    },
    /// The server refused our protocol version; reconnect speaking `fallback`.
    VersionRefused {
        message: String,
        fallback: u8,
    },
    HeartbeatTimeout {
        message: String,
    },
    /// The handshake did not reach READY before [`Config::handshake_timeout_us`].
    HandshakeTimeout {
        message: String,
    },
    Local {
        message: String,
    },
}

impl CloseReason {
    fn from_protocol(e: &ProtocolError) -> Self {
        CloseReason::Protocol { message: e.to_string(), side: e.side, field: e.field, offset: e.offset }
    }
    pub fn message(&self) -> &str {
        match self {
            CloseReason::Eof { message }
            | CloseReason::Protocol { message, .. }
            | CloseReason::Auth { message, .. }
            | CloseReason::Handshake { message, .. }
            | CloseReason::VersionRefused { message, .. }
            | CloseReason::HeartbeatTimeout { message }
            | CloseReason::HandshakeTimeout { message }
            | CloseReason::Local { message } => message,
        }
    }
}

/// An output event. Byte slices borrow the connection's event arena and stay valid until
/// the next input or command.
#[derive(Debug)]
pub enum Event<'a> {
    Ready {
        protocol_version: u8,
    },
    /// `body` is the frame body as received (decompressed), starting with the tracing id,
    /// warnings and custom payload announced by `frame_flags`, then the RESULT.
    Response {
        id: RequestId,
        frame_flags: u8,
        body: &'a [u8],
    },
    Failed {
        id: RequestId,
        error: RequestError,
    },
    ServerEvent(ServerEvent),
    Closed(CloseReason),
    Auth(AuthStep),
}

/// An event whose body is a range of the connection's arena (see
/// [`Connection::poll_raw_event`] and [`Connection::arena_slice`]).
#[derive(Debug)]
pub enum EventRec {
    Ready,
    Response { id: RequestId, frame_flags: u8, start: usize, end: usize },
    Failed { id: RequestId, error: RequestError },
    ServerEvent(ServerEvent),
    Closed(CloseReason),
    /// A SASL step for the host to answer (with `Config::host_authenticator`).
    Auth(AuthStep),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Purpose {
    User,
    Heartbeat,
}

#[derive(Clone, Copy, Debug)]
enum Slot {
    Free,
    InFlight {
        id: RequestId,
        purpose: Purpose,
        deadline: u64,
        timeout_us: u64,
    },
    /// Timed out or cancelled: the id stays reserved until the late response arrives.
    Orphaned,
    /// Stream 0, kept for the handshake.
    Handshake,
}

struct Queued {
    id: RequestId,
    start: usize,
    end: usize,
    deadline: u64,
    timeout_us: u64,
}

/// A local error from a command: the caller asked for something this connection can't do.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalError(pub String);

impl std::fmt::Display for LocalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub struct Connection {
    config: Config,
    state: State,
    version: u8,
    next_request_id: RequestId,

    slots: Vec<Slot>,
    free_streams: Vec<i16>,
    in_flight: usize,
    orphans: usize,
    /// Deadlines, lazily pruned: an entry whose slot no longer matches is skipped.
    deadlines: deadlines::Deadlines,
    /// Numbers the ids of requests started while every stream was taken.
    next_queued_id: u32,

    /// Requests encoded while every stream id was taken; stream ids patched on release.
    backlog: Vec<u8>,
    queued: VecDeque<Queued>,
    /// User requests whose frames are in `out`/`wire_out`, not yet taken by the transport:
    /// if the connection closes now, they were never written.
    unwritten: Vec<RequestId>,
    /// How many of `unwritten` (the oldest) have their frames in `wire_out`.
    unwritten_in_wire_out: usize,

    inbuf: Vec<u8>,
    /// Envelopes (v4 frames) waiting to be sent, before compression or v5 framing.
    out: Vec<u8>,
    /// `out` after compression or v5 framing, as it goes on the wire.
    wire_out: Vec<u8>,
    /// Compression or v5 framing applies from READY (or AUTHENTICATE) on.
    wire: Wire,
    decompressed: Vec<u8>,
    arena: Vec<u8>,
    events: VecDeque<EventRec>,

    /// When set, the owner (a session) decides when event bodies may be overwritten.
    manual_arena: bool,
    /// Set when a large body moved to the arena with the input buffer itself (see
    /// [`Connection::deliver`]): the bytes after it now start `inbuf`.
    inbuf_handed_over: bool,
    /// A frame larger than [`BUFFER_KEEP`] whose end has not arrived yet.
    large: Option<LargeFrame>,
    last_activity: u64,
    /// When the handshake must be done by; set by [`Connection::start`].
    handshake_deadline: u64,
    heartbeat_in_flight: bool,
    authenticator: Option<Box<dyn Authenticator>>,
    /// With a host authenticator: a step was handed to the host, its answer not in yet.
    awaiting_auth_answer: bool,
    supported: Vec<(String, Vec<String>)>,
    scylla: ScyllaFeatures,
}

const HANDSHAKE_STREAM: i16 = 0;

/// What an emptied buffer keeps of its capacity: enough that ordinary traffic reuses it, but
/// one huge result must not pin its size for the life of the connection (as in
/// [`crate::v5::FrameDecoder`]).
pub const BUFFER_KEEP: usize = 512 * 1024;

/// Empties nothing: shrinks `buf`'s capacity back to [`BUFFER_KEEP`] (or its length, if
/// longer) once it grew past it.
fn shrink(buf: &mut Vec<u8>) {
    if buf.capacity() > BUFFER_KEEP {
        buf.shrink_to(BUFFER_KEEP.max(buf.len()));
    }
}

/// A large frame's bytes, kept as they arrive and put together into `inbuf` once all are
/// present: the input buffer is then allocated once, at a size that is present, rather than
/// grown into by doubling, whose abandoned halves WebAssembly memory never gives back (a 12 MB
/// result left 30 MB of it behind; issue #17).
struct LargeFrame {
    /// The frame's length from its header: compared with, never allocated.
    total: usize,
    have: usize,
    pieces: Vec<Vec<u8>>,
}

/// How envelopes travel once the handshake has reached READY or AUTHENTICATE.
enum Wire {
    Plain,
    V4Compressed(Compression),
    V5 { encoder: FrameEncoder, decoder: Box<FrameDecoder> },
}

/// Where a frame's body lives: in the input buffer, or decompressed into a scratch buffer.
#[derive(Clone, Copy)]
enum BodySrc {
    Inbuf,
    Decompressed,
}

impl Connection {
    pub fn new(config: Config) -> Self {
        let version = config.protocol_version;
        Self {
            config,
            state: State::Idle,
            version,
            next_request_id: 1,
            slots: Vec::new(),
            free_streams: Vec::new(),
            in_flight: 0,
            orphans: 0,
            deadlines: deadlines::Deadlines::default(),
            next_queued_id: 0,
            backlog: Vec::new(),
            queued: VecDeque::new(),
            unwritten: Vec::new(),
            unwritten_in_wire_out: 0,
            inbuf: Vec::new(),
            out: Vec::new(),
            wire_out: Vec::new(),
            wire: Wire::Plain,
            decompressed: Vec::new(),
            arena: Vec::new(),
            events: VecDeque::new(),
            manual_arena: false,
            inbuf_handed_over: false,
            large: None,
            last_activity: 0,
            handshake_deadline: 0,
            heartbeat_in_flight: false,
            authenticator: None,
            awaiting_auth_answer: false,
            supported: Vec::new(),
            scylla: ScyllaFeatures::default(),
        }
    }

    // ---- getters ----------------------------------------------------------------

    pub fn state(&self) -> State {
        self.state
    }
    pub fn protocol_version(&self) -> u8 {
        self.version
    }
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }
    pub fn queued(&self) -> usize {
        self.queued.len()
    }
    pub fn orphans(&self) -> usize {
        self.orphans
    }
    pub fn supported(&self) -> &[(String, Vec<String>)] {
        &self.supported
    }
    /// Scylla's extensions the server offered (empty for Cassandra).
    pub fn scylla(&self) -> &ScyllaFeatures {
        &self.scylla
    }
    pub fn is_usable(&self) -> bool {
        self.state == State::Ready
    }

    // ---- commands -----------------------------------------------------------------

    /// Begins the handshake: OPTIONS, then STARTUP.
    pub fn start(&mut self, now: u64) {
        self.begin_call();
        if self.state != State::Idle {
            return;
        }
        self.last_activity = now;
        self.handshake_deadline = now.saturating_add(self.config.handshake_timeout_us);
        let start = FrameHeader::begin_request(&mut self.out, self.version, 0, HANDSHAKE_STREAM, Opcode::Options);
        finish_frame(&mut self.out, start);
        self.state = State::Options;
    }

    /// Encodes a request now; it goes out at the next `poll_transmit`, or queues when every
    /// stream id is taken.
    pub fn start_request(
        &mut self,
        now: u64,
        request: Request,
        timeout_us: Option<u64>,
    ) -> Result<RequestId, LocalError> {
        self.submit(now, timeout_us, |out, version, stream| Self::encode(out, version, stream, &request))
    }

    /// Sends a request body that was encoded once up front (by [`encode_body`]), so a
    /// retry or a speculative execution costs one copy and no re-encoding.
    pub fn start_encoded(
        &mut self,
        now: u64,
        opcode: Opcode,
        flags: u8,
        body: &[u8],
        timeout_us: Option<u64>,
    ) -> Result<RequestId, LocalError> {
        self.submit(now, timeout_us, |out, version, stream| {
            let start = FrameHeader::begin_request(out, version, flags, stream, opcode);
            out.extend_from_slice(body);
            finish_frame(out, start);
            Ok(())
        })
    }

    fn submit(
        &mut self,
        now: u64,
        timeout_us: Option<u64>,
        write: impl FnOnce(&mut Vec<u8>, u8, i16) -> Result<(), LocalError>,
    ) -> Result<RequestId, LocalError> {
        self.begin_call();
        match self.state {
            State::Ready => {}
            State::Draining => {
                return Err(LocalError("connection is draining after too many timed-out requests".into()))
            }
            State::Closed => return Err(LocalError("connection is closed".into())),
            _ => return Err(LocalError("connection is not ready yet".into())),
        }
        let timeout = timeout_us.filter(|t| *t > 0).unwrap_or(self.config.request_timeout_us);
        let deadline = now.saturating_add(timeout);
        let id = match self.take_stream() {
            Some(stream) => {
                let id = self.direct_id(stream);
                let start = self.out.len();
                if let Err(e) = write(&mut self.out, self.version, stream) {
                    self.out.truncate(start);
                    self.release_stream(stream);
                    return Err(e);
                }
                self.occupy(stream, id, Purpose::User, deadline, timeout);
                id
            }
            None => {
                let id = self.queued_id();
                let start = self.backlog.len();
                if let Err(e) = write(&mut self.backlog, self.version, 0) {
                    self.backlog.truncate(start);
                    return Err(e);
                }
                self.queued.push_back(Queued { id, start, end: self.backlog.len(), deadline, timeout_us: timeout });
                self.deadlines.push((deadline, -1, id));
                id
            }
        };
        Ok(id)
    }

    /// Gives up on a request. Its stream id is orphaned, not freed: a late response to it
    /// must not be mistaken for the answer to a newer request.
    pub fn cancel(&mut self, _now: u64, id: RequestId) {
        self.begin_call();
        let carries = |slot: &Slot| matches!(slot, Slot::InFlight { id: sid, purpose: Purpose::User, .. } if *sid == id);
        let stream = match stream_of_id(id) {
            Some(stream) => Some(stream).filter(|&s| self.slots.get(s).is_some_and(carries)),
            None => match self.queued.iter().position(|q| q.id == id) {
                Some(pos) => {
                    self.queued.remove(pos);
                    None
                }
                // Started queued, sent since: rare enough to look for.
                None => self.slots.iter().position(carries),
            },
        };
        if let Some(slot) = stream.and_then(|s| self.slots.get_mut(s)) {
            *slot = Slot::Orphaned;
            self.in_flight -= 1;
            self.orphans += 1;
            self.check_orphans();
        }
    }

    /// The id of a request sent on `stream` now (see [`QUEUED_ID_BIT`]).
    fn direct_id(&mut self, stream: i16) -> RequestId {
        let generation = self.next_request_id;
        self.next_request_id = self.next_request_id.wrapping_add(1) & 0xFFFF;
        generation << 16 | (stream as RequestId & 0x7FFF)
    }

    /// The id of a request that waits for a stream (see [`QUEUED_ID_BIT`]).
    fn queued_id(&mut self) -> RequestId {
        let n = self.next_queued_id;
        self.next_queued_id = self.next_queued_id.wrapping_add(1) & 0x7FFF_FFFF;
        (n >> 15) << 16 | QUEUED_ID_BIT | (n & 0x7FFF)
    }

    /// Closes the connection because its owner found the peer's bytes unacceptable (a reply
    /// the session reads itself, say): what is in flight fails with that protocol error, and
    /// the last event is [`Event::Closed`] with it.
    pub fn fail(&mut self, error: &ProtocolError) {
        self.close(CloseReason::from_protocol(error));
    }

    /// Closes the connection because the peer did not answer what its owner waited for in
    /// time (the session's control queries while it joins): what is in flight fails as
    /// closed, and the last event is [`Event::Closed`] with a [`CloseReason::HandshakeTimeout`]
    /// saying `message`.
    pub fn time_out(&mut self, message: String) {
        self.close(CloseReason::HandshakeTimeout { message });
    }

    // ---- inputs ---------------------------------------------------------------------

    pub fn handle_bytes(&mut self, now: u64, chunk: &[u8]) {
        self.begin_call();
        if self.state == State::Closed {
            return;
        }
        let input = if self.large.is_some() { self.collect_large(chunk) } else { self.unwrap_input(chunk).map(|_| true) };
        match input {
            Ok(true) => {}
            // The large frame is still incomplete.
            Ok(false) => return,
            Err(e) => {
                self.close(CloseReason::from_protocol(&e));
                return;
            }
        }
        let mut consumed = 0;
        loop {
            let header = match FrameHeader::decode(&self.inbuf[consumed..], self.config.max_frame_bytes) {
                Ok(Some(h)) => h,
                Ok(None) => break,
                Err(e) => {
                    self.close(CloseReason::from_protocol(&e));
                    return;
                }
            };
            let total = HEADER_LEN + header.body_len as usize;
            if self.inbuf.len() - consumed < total {
                if total > BUFFER_KEEP {
                    self.start_large(consumed, total);
                    consumed = 0;
                }
                break;
            }
            let body_start = consumed + HEADER_LEN;
            consumed += total;
            // Idle is counted from the last whole frame, not the last byte: a server that
            // drips a frame (or sends half of one) must not keep the heartbeat from asking.
            self.last_activity = now;
            let wire_was_plain = matches!(self.wire, Wire::Plain);
            let result = if header.flags & flags::COMPRESSION != 0 {
                self.decompress_body(body_start, consumed).and_then(|len| self.on_frame(now, header, BodySrc::Decompressed, 0, len))
            } else {
                self.on_frame(now, header, BodySrc::Inbuf, body_start, consumed)
            };
            if std::mem::take(&mut self.inbuf_handed_over) {
                consumed = 0;
            }
            if let Err(reason) = result {
                self.close(reason);
                return;
            }
            if self.state == State::Closed {
                return;
            }
            if wire_was_plain && matches!(self.wire, Wire::V5 { .. }) && consumed < self.inbuf.len() {
                // Bytes after READY/AUTHENTICATE in the same read are already framed.
                let rest = self.inbuf.split_off(consumed);
                self.inbuf.clear();
                consumed = 0;
                if let Err(e) = self.unwrap_input(&rest) {
                    self.close(CloseReason::from_protocol(&e));
                    return;
                }
            }
        }
        self.inbuf.drain(..consumed);
        shrink(&mut self.inbuf);
        // Decompressed bodies were copied to the arena: the scratch is free.
        self.decompressed.clear();
        shrink(&mut self.decompressed);
        self.prune_deadlines();
    }

    /// Appends input to the envelope buffer, through the v5 frame decoder once it applies.
    fn unwrap_input(&mut self, chunk: &[u8]) -> Result<(), ProtocolError> {
        match &mut self.wire {
            Wire::V5 { decoder, .. } => decoder.decode_all(chunk, &mut self.inbuf).map(|_| ()),
            _ => {
                self.inbuf.extend_from_slice(chunk);
                Ok(())
            }
        }
    }

    /// Moves the start of a large frame out of `inbuf` into the first of its pieces.
    fn start_large(&mut self, frame_start: usize, total: usize) {
        let first = self.inbuf[frame_start..].to_vec();
        self.inbuf.clear();
        self.large = Some(LargeFrame { total, have: first.len(), pieces: vec![first] });
    }

    /// Adds input to the large frame; once all of it is present, puts it together in `inbuf`
    /// (with whatever followed it) and says true.
    fn collect_large(&mut self, chunk: &[u8]) -> Result<bool, ProtocolError> {
        let mut piece = Vec::new();
        match &mut self.wire {
            Wire::V5 { decoder, .. } => {
                decoder.decode_all(chunk, &mut piece)?;
            }
            _ => piece.extend_from_slice(chunk),
        }
        let Some(large) = self.large.as_mut() else { return Ok(true) };
        large.have += piece.len();
        if !piece.is_empty() {
            large.pieces.push(piece);
        }
        if large.have < large.total {
            return Ok(false);
        }
        let Some(large) = self.large.take() else { return Ok(true) };
        let mut whole = Vec::with_capacity(crate::v5::large_envelope_capacity(large.have));
        for piece in large.pieces {
            whole.extend_from_slice(&piece);
        }
        self.inbuf = whole;
        Ok(true)
    }

    fn decompress_body(&mut self, start: usize, end: usize) -> Result<usize, CloseReason> {
        let Wire::V4Compressed(algorithm) = self.wire else {
            return Err(proto("frame header flags", 1, "compressed frame but no compression was negotiated".into()));
        };
        self.decompressed.clear();
        algorithm
            .decompress(&self.inbuf[start..end], self.config.max_frame_bytes as usize, &mut self.decompressed)
            .map_err(|e| CloseReason::from_protocol(&ProtocolError { offset: e.offset + start, ..e }))?;
        Ok(self.decompressed.len())
    }

    fn body(&self, src: BodySrc, start: usize, end: usize) -> &[u8] {
        match src {
            BodySrc::Inbuf => &self.inbuf[start..end],
            BodySrc::Decompressed => &self.decompressed[start..end],
        }
    }

    /// From READY or AUTHENTICATE on, envelopes are compressed (v4) or framed (v5).
    fn activate_wire(&mut self) {
        if !matches!(self.wire, Wire::Plain) {
            return;
        }
        // Whatever was queued before this point leaves as it was written.
        self.wire_out.extend_from_slice(&self.out);
        self.out.clear();
        let compression = self.config.compression;
        self.wire = if self.version >= 5 {
            let lz4 = compression == Compression::Lz4;
            let decoder = FrameDecoder::new(lz4).with_max_envelope_len(self.config.max_frame_bytes as usize + HEADER_LEN);
            Wire::V5 { encoder: FrameEncoder::new(lz4), decoder: Box::new(decoder) }
        } else if compression != Compression::None {
            Wire::V4Compressed(compression)
        } else {
            Wire::Plain
        };
    }

    pub fn handle_eof(&mut self, _now: u64) {
        self.begin_call();
        if self.state != State::Closed {
            self.close(CloseReason::Eof { message: "the server closed the connection".into() });
        }
    }

    /// Expires requests past their deadline and sends heartbeats. Spurious calls are no-ops.
    pub fn handle_timeout(&mut self, now: u64) {
        self.begin_call();
        if self.state == State::Closed {
            return;
        }
        if self.is_handshaking() && now >= self.handshake_deadline {
            let ms = self.config.handshake_timeout_us / 1000;
            self.close(CloseReason::HandshakeTimeout {
                message: format!("the server did not complete the handshake within {ms} ms (stuck in {:?})", self.state),
            });
            return;
        }
        while let Some((deadline, stream, id)) = self.deadlines.peek() {
            if deadline > now {
                break;
            }
            self.deadlines.pop();
            if stream < 0 {
                if let Some(pos) = self.queued.iter().position(|q| q.id == id) {
                    let timeout_us = self.queued.remove(pos).map(|q| q.timeout_us).unwrap_or(0);
                    self.push_timeout(id, timeout_us);
                }
                continue;
            }
            let slot = match self.slots.get_mut(stream as usize) {
                Some(s) => s,
                None => continue,
            };
            if let Slot::InFlight { id: sid, purpose, deadline: d, timeout_us } = *slot {
                if sid != id || d != deadline {
                    continue;
                }
                *slot = Slot::Orphaned;
                self.in_flight -= 1;
                self.orphans += 1;
                match purpose {
                    Purpose::Heartbeat => {
                        self.close(CloseReason::HeartbeatTimeout {
                            message: "the server did not answer a heartbeat in time".into(),
                        });
                        return;
                    }
                    Purpose::User => {
                        self.push_timeout(id, timeout_us);
                    }
                }
            }
        }
        self.check_orphans();
        if self.heartbeat_due(now) {
            self.send_heartbeat(now);
        }
    }

    // ---- outputs --------------------------------------------------------------------

    /// Moves every byte waiting to be written into `buf` (appending). Returns how many.
    /// A large output into an empty `buf` moves over with its buffer instead of being copied,
    /// so a burst of large requests is not held twice (issue #17).
    pub fn poll_transmit(&mut self, buf: &mut Vec<u8>) -> usize {
        let n = self.transmit_buffer().len();
        if buf.is_empty() && n > BUFFER_KEEP {
            std::mem::swap(buf, &mut self.wire_out);
        } else {
            buf.extend_from_slice(&self.wire_out);
        }
        self.consume_transmit();
        n
    }

    /// The pending output as it goes on the wire (compressed or framed as negotiated),
    /// without copying; call [`Connection::consume_transmit`] once the socket has it.
    pub fn transmit_buffer(&mut self) -> &[u8] {
        if !self.out.is_empty() {
            match &mut self.wire {
                // Nothing waiting on the wire: the frames are the wire bytes, moved, not copied.
                Wire::Plain if self.wire_out.is_empty() => std::mem::swap(&mut self.out, &mut self.wire_out),
                Wire::Plain => self.wire_out.extend_from_slice(&self.out),
                Wire::V4Compressed(algorithm) => compress_frames(*algorithm, &self.out, &mut self.wire_out),
                // `out` holds whole envelopes only, which is all the encoder can fail on.
                Wire::V5 { encoder, .. } => {
                    if self.out.len() > BUFFER_KEEP {
                        // Sized once: a burst is not grown into by doubling (issue #17).
                        self.wire_out.reserve(crate::v5::framed_len_bound(self.out.len()));
                    }
                    let _ = encoder.encode_self_contained(&self.out, &mut self.wire_out);
                }
            }
            self.out.clear();
            shrink(&mut self.out);
            self.unwritten_in_wire_out = self.unwritten.len();
        }
        &self.wire_out
    }

    pub fn has_transmit(&self) -> bool {
        !self.out.is_empty() || !self.wire_out.is_empty()
    }

    /// The transport has the bytes: the requests in them count as written from now on.
    pub fn consume_transmit(&mut self) {
        self.wire_out.clear();
        shrink(&mut self.wire_out);
        let taken = std::mem::take(&mut self.unwritten_in_wire_out).min(self.unwritten.len());
        self.unwritten.drain(..taken);
    }

    /// The next instant at which `handle_timeout` has work, if any.
    pub fn poll_timeout(&self) -> Option<u64> {
        if self.state == State::Closed {
            return None;
        }
        if self.is_handshaking() {
            return Some(self.handshake_deadline);
        }
        let request = self.deadlines.peek().map(|(d, _, _)| d);
        let heartbeat = self.heartbeat_deadline();
        match (request, heartbeat) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Like [`Connection::poll_event`], with the body as a range to read later through
    /// [`Connection::arena_slice`] (with manual arena release).
    pub fn poll_raw_event(&mut self) -> Option<EventRec> {
        self.events.pop_front()
    }

    pub fn poll_event(&mut self) -> Option<Event<'_>> {
        let rec = self.events.pop_front()?;
        Some(match rec {
            EventRec::Ready => Event::Ready { protocol_version: self.version },
            EventRec::Response { id, frame_flags, start, end } => {
                Event::Response { id, frame_flags, body: &self.arena[start..end] }
            }
            EventRec::Failed { id, error } => Event::Failed { id, error },
            EventRec::ServerEvent(e) => Event::ServerEvent(e),
            EventRec::Closed(r) => Event::Closed(r),
            EventRec::Auth(step) => Event::Auth(step),
        })
    }

    // ---- internals --------------------------------------------------------------------

    fn begin_call(&mut self) {
        if self.events.is_empty() && !self.manual_arena {
            self.arena.clear();
            shrink(&mut self.arena);
        }
    }

    /// Keeps response bodies alive across calls until [`Connection::release_arena`], for an
    /// owner that hands them on after later calls into this connection.
    pub fn set_manual_arena(&mut self, manual: bool) {
        self.manual_arena = manual;
    }

    pub fn release_arena(&mut self) {
        if self.events.is_empty() {
            self.arena.clear();
            shrink(&mut self.arena);
        }
    }

    /// Bytes of capacity held by this connection's buffers (input, decompression, event
    /// arena, output, backlog): what a large result leaves behind once it was handed over.
    pub fn buffer_capacity(&self) -> usize {
        let v5 = match &self.wire {
            Wire::V5 { decoder, .. } => decoder.buffer_capacity(),
            _ => 0,
        };
        let large: usize = self.large.iter().flat_map(|l| &l.pieces).map(|p| p.capacity()).sum();
        [&self.inbuf, &self.decompressed, &self.arena, &self.out, &self.wire_out, &self.backlog]
            .iter()
            .map(|b| b.capacity())
            .sum::<usize>()
            + v5
            + large
    }

    /// A response body previously delivered, by its range in the arena.
    pub fn arena_slice(&self, start: usize, end: usize) -> &[u8] {
        self.arena.get(start..end).unwrap_or(&[])
    }

    fn push_timeout(&mut self, id: RequestId, timeout_us: u64) {
        self.events.push_back(EventRec::Failed {
            id,
            error: RequestError::Timeout {
                message: format!("no response within {} ms", timeout_us / 1000),
                timeout_ms: timeout_us / 1000,
            },
        });
    }

    /// Drops deadlines of requests that already finished from the top of the heap, so it stays
    /// about as large as the requests in flight (responses mostly arrive in order).
    fn prune_deadlines(&mut self) {
        let (queued, slots) = (&self.queued, &self.slots);
        self.deadlines.prune(|(_, stream, id)| {
            if stream < 0 {
                // Queued ids increase in FIFO order: an id below the front was sent or dropped.
                queued.front().is_some_and(|q| id.wrapping_sub(q.id) < u32::MAX / 2)
            } else {
                matches!(slots.get(stream as usize), Some(Slot::InFlight { id: sid, .. }) if *sid == id)
            }
        });
    }

    fn check_orphans(&mut self) {
        if self.orphans > self.config.orphan_limit && self.state == State::Ready {
            self.state = State::Draining;
        }
    }

    fn is_handshaking(&self) -> bool {
        matches!(self.state, State::Options | State::Startup | State::Authenticating | State::UseKeyspace)
    }

    fn heartbeat_deadline(&self) -> Option<u64> {
        if self.config.heartbeat_interval_us == 0 || self.heartbeat_in_flight || self.state != State::Ready {
            return None;
        }
        Some(self.last_activity.saturating_add(self.config.heartbeat_interval_us))
    }

    fn heartbeat_due(&self, now: u64) -> bool {
        self.heartbeat_deadline().is_some_and(|d| d <= now)
    }

    fn send_heartbeat(&mut self, now: u64) {
        let Some(stream) = self.take_stream() else { return };
        let start = FrameHeader::begin_request(&mut self.out, self.version, 0, stream, Opcode::Options);
        finish_frame(&mut self.out, start);
        self.heartbeat_in_flight = true;
        let deadline = now.saturating_add(self.config.request_timeout_us);
        self.occupy(stream, 0, Purpose::Heartbeat, deadline, self.config.request_timeout_us);
    }

    fn take_stream(&mut self) -> Option<i16> {
        if let Some(s) = self.free_streams.pop() {
            return Some(s);
        }
        let limit = self.config.max_streams.min(MAX_STREAMS);
        if self.slots.len() < limit {
            // Stream 0 is kept for the handshake so its replies can't be confused.
            if self.slots.is_empty() {
                self.slots.push(Slot::Handshake);
            }
            if self.slots.len() < limit {
                self.slots.push(Slot::Free);
                return Some((self.slots.len() - 1) as i16);
            }
        }
        None
    }

    fn occupy(&mut self, stream: i16, id: RequestId, purpose: Purpose, deadline: u64, timeout_us: u64) {
        self.slots[stream as usize] = Slot::InFlight { id, purpose, deadline, timeout_us };
        self.in_flight += 1;
        if purpose == Purpose::User {
            self.unwritten.push(id);
        }
        self.deadlines.push((deadline, stream, id));
    }

    /// Frees a stream id and hands it to the oldest queued request, if any.
    fn release_stream(&mut self, stream: i16) {
        self.slots[stream as usize] = Slot::Free;
        if let Some(q) = self.queued.pop_front() {
            let start = self.out.len();
            self.out.extend_from_slice(&self.backlog[q.start..q.end]);
            self.out[start + 2..start + 4].copy_from_slice(&stream.to_be_bytes());
            self.occupy(stream, q.id, Purpose::User, q.deadline, q.timeout_us);
            if self.queued.is_empty() {
                self.backlog.clear();
                shrink(&mut self.backlog);
            }
            return;
        }
        self.free_streams.push(stream);
    }

    fn encode(out: &mut Vec<u8>, version: u8, stream: i16, request: &Request) -> Result<(), LocalError> {
        let (opcode, flags) = request_kind(request);
        let start = FrameHeader::begin_request(out, version, flags, stream, opcode);
        encode_body(out, version, request)?;
        finish_frame(out, start);
        Ok(())
    }

    fn write_startup(&mut self) {
        let start = FrameHeader::begin_request(&mut self.out, self.version, 0, HANDSHAKE_STREAM, Opcode::Startup);
        let driver_version = self.config.driver_version.clone();
        let extensions = self.scylla.startup_options();
        let mut options: Vec<(&str, &str)> =
            vec![("CQL_VERSION", "3.0.0"), ("DRIVER_NAME", "cqlwire"), ("DRIVER_VERSION", &driver_version)];
        if let Some(c) = self.config.compression.name() {
            options.push(("COMPRESSION", c));
        }
        options.extend(extensions.iter().map(|(k, v)| (*k, v.as_str())));
        Writer::new(&mut self.out).string_map(&options);
        finish_frame(&mut self.out, start);
        self.state = State::Startup;
        // On v4 the server may compress everything after STARTUP, READY included.
        if self.version < 5 && self.config.compression != Compression::None {
            self.activate_wire();
        }
    }

    fn write_auth_response(&mut self, authenticator_class: &str) -> Result<(), CloseReason> {
        let mut auth: Box<dyn Authenticator> = match (&self.config.authenticator, &self.config.credentials) {
            (Some(factory), _) => (factory.0)(),
            (None, Some(c)) => Box::new(PlainAuthenticator(c.clone())),
            (None, None) => {
                return Err(CloseReason::Auth {
                    message: format!("the server requires authentication ({authenticator_class}) but no credentials were given"),
                    code: None,
                })
            }
        };
        let token = auth
            .initial_response(authenticator_class)
            .map_err(|e| CloseReason::Auth { message: format!("authenticator failed: {e}"), code: None })?;
        self.authenticator = Some(auth);
        self.send_auth_token(&token);
        Ok(())
    }

    fn send_auth_token(&mut self, token: &[u8]) {
        let start = FrameHeader::begin_request(&mut self.out, self.version, 0, HANDSHAKE_STREAM, Opcode::AuthResponse);
        Writer::new(&mut self.out).bytes(Some(token));
        finish_frame(&mut self.out, start);
        self.state = State::Authenticating;
    }

    fn after_authentication(&mut self) {
        if let Some(ks) = self.config.keyspace.clone() {
            let start = FrameHeader::begin_request(&mut self.out, self.version, 0, HANDSHAKE_STREAM, Opcode::Query);
            let mut w = Writer::new(&mut self.out);
            w.long_string(&format!("USE \"{}\"", ks.replace('"', "\"\"")));
            message::write_query_parameters(&mut w, self.version, &[], &QueryOptions::default());
            finish_frame(&mut self.out, start);
            self.state = State::UseKeyspace;
        } else {
            self.become_ready();
        }
    }

    fn become_ready(&mut self) {
        self.state = State::Ready;
        self.events.push_back(EventRec::Ready);
    }

    fn on_frame(&mut self, now: u64, h: FrameHeader, src: BodySrc, body_start: usize, body_end: usize) -> Result<(), CloseReason> {
        if !h.is_response {
            return Err(CloseReason::Protocol {
                message: "remote protocol error in frame header version at byte 0: the server sent a request frame"
                    .into(),
                side: Side::Remote,
                field: "frame header version",
                offset: 0,
            });
        }
        if h.stream == -1 {
            return self.on_event_frame(h, src, body_start, body_end);
        }
        match self.state {
            State::Options | State::Startup | State::Authenticating | State::UseKeyspace => {
                if h.stream != HANDSHAKE_STREAM {
                    return Err(proto("frame header stream", 2, format!("stream {} during the handshake", h.stream)));
                }
                self.on_handshake_frame(h, src, body_start, body_end)
            }
            State::Ready | State::Draining => self.on_request_frame(now, h, src, body_start, body_end),
            State::Idle | State::Closed => Err(proto("frame header", 0, "a frame before the handshake began".into())),
        }
    }

    // The handlers of the rare frames (server events, the handshake's, error answers) are
    // `#[inline(never)]`: inlined, they made `on_frame`, hot on every answer, 10 KB of WASM
    // that V8's optimising tier re-compiles in a 6 MB zone (bench/memory, issue #17).
    #[inline(never)]
    fn on_event_frame(&mut self, h: FrameHeader, src: BodySrc, body_start: usize, body_end: usize) -> Result<(), CloseReason> {
        if h.opcode != Opcode::Event {
            return Err(proto("frame header opcode", 4, format!("stream -1 carries {:?}, expected EVENT", h.opcode)));
        }
        let ev = ServerEvent::decode(self.body(src, body_start, body_end)).map_err(|e| CloseReason::from_protocol(&e))?;
        self.events.push_back(EventRec::ServerEvent(ev));
        Ok(())
    }

    #[inline(never)] // rare: see on_event_frame
    fn on_handshake_frame(&mut self, h: FrameHeader, src: BodySrc, body_start: usize, body_end: usize) -> Result<(), CloseReason> {
        let body = self.body(src, body_start, body_end);
        if h.opcode == Opcode::Error {
            let err = ServerError::decode(body, h.version).map_err(|e| CloseReason::from_protocol(&e))?;
            return Err(match err.code {
                0x0100 => CloseReason::Auth {
                    message: format!("authentication failed: {}", err.message),
                    code: Some(err.code),
                },
                0x000A
                    if self.state == State::Options
                        && self.version > 4
                        && err.message.to_ascii_lowercase().contains("version") =>
                {
                    CloseReason::VersionRefused {
                        message: format!("the server refused protocol v{}: {}", self.version, err.message),
                        fallback: self.version - 1,
                    }
                }
                _ => CloseReason::Handshake {
                    message: format!("handshake failed during {:?}: {} ({})", self.state, err.message, err.code_name),
                    error: Some(err),
                },
            });
        }
        match (self.state, h.opcode) {
            (State::Options, Opcode::Supported) => {
                self.supported = message::decode_supported(body).map_err(|e| CloseReason::from_protocol(&e))?;
                self.scylla = ScyllaFeatures::parse(&self.supported).map_err(|e| CloseReason::from_protocol(&e))?;
                self.write_startup();
                Ok(())
            }
            (State::Startup, Opcode::Ready) => {
                self.activate_wire();
                self.after_authentication();
                Ok(())
            }
            (State::Startup, Opcode::Authenticate) => {
                let class = Reader::new(body).string("authenticator class").unwrap_or("unknown").to_owned();
                self.activate_wire();
                if self.config.host_authenticator {
                    self.ask_host(AuthStep::Start { authenticator_class: class });
                    return Ok(());
                }
                self.write_auth_response(&class)
            }
            (State::Authenticating, _) if self.awaiting_auth_answer => {
                Err(proto("frame header opcode", 4, format!("unexpected {:?} before the SASL answer was sent", h.opcode)))
            }
            (State::Authenticating, Opcode::AuthSuccess) => {
                if self.config.host_authenticator {
                    let token = Reader::new(body).bytes_opt("auth success token").map_err(|e| CloseReason::from_protocol(&e))?;
                    let token = token.map(<[u8]>::to_vec);
                    self.ask_host(AuthStep::Success { token });
                }
                self.authenticator = None;
                self.after_authentication();
                Ok(())
            }
            (State::Authenticating, Opcode::AuthChallenge) => {
                let challenge = Reader::new(body).bytes_opt("auth challenge token").map_err(|e| CloseReason::from_protocol(&e))?;
                let challenge = challenge.map(<[u8]>::to_vec);
                if self.config.host_authenticator {
                    self.ask_host(AuthStep::Challenge { token: challenge });
                    return Ok(());
                }
                let answer = match self.authenticator.as_mut() {
                    Some(a) => a.evaluate_challenge(challenge.as_deref()),
                    None => Err("no authenticator".into()),
                };
                let token = answer.map_err(|e| CloseReason::Auth { message: format!("authentication failed: {e}"), code: None })?;
                self.send_auth_token(&token);
                Ok(())
            }
            (State::UseKeyspace, Opcode::Result) => {
                self.become_ready();
                Ok(())
            }
            (state, opcode) => Err(proto("frame header opcode", 4, format!("unexpected {opcode:?} during {state:?}"))),
        }
    }

    fn on_request_frame(
        &mut self,
        _now: u64,
        h: FrameHeader,
        src: BodySrc,
        body_start: usize,
        body_end: usize,
    ) -> Result<(), CloseReason> {
        let stream = h.stream;
        let slot = match self.slots.get(stream as usize) {
            Some(s) if stream >= 0 => *s,
            _ => {
                return Err(proto(
                    "frame header stream",
                    2,
                    format!("response on stream {stream}, which we never used"),
                ))
            }
        };
        match slot {
            Slot::Free | Slot::Handshake => {
                Err(proto("frame header stream", 2, format!("response on stream {stream}, which has no request")))
            }
            Slot::Orphaned => {
                // The late answer to a timed-out request: only now may the id be reused.
                self.orphans = self.orphans.saturating_sub(1);
                self.release_stream(stream);
                Ok(())
            }
            Slot::InFlight { id, purpose, .. } => {
                self.in_flight -= 1;
                match purpose {
                    Purpose::Heartbeat => {
                        self.heartbeat_in_flight = false;
                        self.release_stream(stream);
                        Ok(())
                    }
                    Purpose::User => {
                        self.release_stream(stream);
                        self.deliver(id, h, src, body_start, body_end)
                    }
                }
            }
        }
    }

    fn deliver(
        &mut self,
        id: RequestId,
        h: FrameHeader,
        src: BodySrc,
        body_start: usize,
        body_end: usize,
    ) -> Result<(), CloseReason> {
        match h.opcode {
            // REGISTER is answered with READY: an empty success.
            Opcode::Result | Opcode::Ready => {
                if matches!(src, BodySrc::Inbuf) && self.arena.is_empty() && body_end - body_start > BUFFER_KEEP {
                    self.hand_over_inbuf(body_end);
                    self.events.push_back(EventRec::Response { id, frame_flags: h.flags, start: body_start, end: body_end });
                    return Ok(());
                }
                let start = self.arena.len();
                let body = match src {
                    BodySrc::Inbuf => &self.inbuf[body_start..body_end],
                    BodySrc::Decompressed => &self.decompressed[body_start..body_end],
                };
                self.arena.extend_from_slice(body);
                self.events.push_back(EventRec::Response { id, frame_flags: h.flags, start, end: self.arena.len() });
                Ok(())
            }
            Opcode::Error => self.deliver_error(id, h, src, body_start, body_end),
            other => Err(proto("frame header opcode", 4, format!("{other:?} in answer to a request"))),
        }
    }

    /// A request's ERROR answer, decoded into its `Failed` event.
    #[inline(never)] // rare: see on_event_frame
    fn deliver_error(&mut self, id: RequestId, h: FrameHeader, src: BodySrc, body_start: usize, body_end: usize) -> Result<(), CloseReason> {
        let body =
            skip_response_prefix(self.body(src, body_start, body_end), h.flags).map_err(|e| CloseReason::from_protocol(&e))?;
        let err = ServerError::decode_with(body, h.version, self.scylla.rate_limit_error_code)
            .map_err(|e| CloseReason::from_protocol(&e))?;
        self.events.push_back(EventRec::Failed { id, error: RequestError::Server(err) });
        Ok(())
    }

    /// A large body is not copied into the arena: the input buffer becomes the arena (the
    /// body stays where it is) and the bytes after the frame start a fresh input buffer, so a
    /// large result is held once rather than twice (issue #17). Only with an empty arena.
    fn hand_over_inbuf(&mut self, frame_end: usize) {
        std::mem::swap(&mut self.arena, &mut self.inbuf);
        self.inbuf.clear();
        self.inbuf.extend_from_slice(&self.arena[frame_end..]);
        self.arena.truncate(frame_end);
        self.inbuf_handed_over = true;
    }

    fn close(&mut self, reason: CloseReason) {
        if self.state == State::Closed {
            return;
        }
        self.state = State::Closed;
        let message = format!("connection closed: {}", reason.message());
        // Requests on a connection that broke the protocol fail with that protocol error, so
        // callers see which field and which side, not just "closed".
        let error = |written: bool| match &reason {
            CloseReason::Protocol { message, side, field, offset } => {
                RequestError::Protocol { message: message.clone(), side: *side, field, offset: *offset }
            }
            _ => RequestError::Closed { message: message.clone(), written },
        };
        let unwritten: HashSet<RequestId> = self.unwritten.drain(..).collect();
        self.unwritten_in_wire_out = 0;
        for slot in self.slots.iter_mut() {
            if let Slot::InFlight { id, purpose: Purpose::User, .. } = *slot {
                self.events.push_back(EventRec::Failed { id, error: error(!unwritten.contains(&id)) });
            }
            *slot = Slot::Free;
        }
        for q in self.queued.drain(..) {
            self.events.push_back(EventRec::Failed { id: q.id, error: error(false) });
        }
        self.in_flight = 0;
        self.deadlines.clear();
        self.inbuf.clear();
        self.large = None;
        self.events.push_back(EventRec::Closed(reason));
    }
}

/// The opcode and frame flags a request travels with.
pub fn request_kind(request: &Request) -> (Opcode, u8) {
    let opcode = match request {
        Request::Query { .. } => Opcode::Query,
        Request::Prepare { .. } => Opcode::Prepare,
        Request::Execute { .. } => Opcode::Execute,
        Request::Batch { .. } => Opcode::Batch,
        Request::Register { .. } => Opcode::Register,
    };
    let tracing = match request {
        Request::Query { options, .. } | Request::Execute { options, .. } | Request::Batch { options, .. } => {
            options.tracing
        }
        _ => false,
    };
    (opcode, if tracing { flags::TRACING } else { 0 })
}

/// Appends a request's body (no frame header) for protocol `version`.
#[inline]
pub fn encode_body(out: &mut Vec<u8>, version: u8, request: &Request) -> Result<(), LocalError> {
    check_request(request)?;
    write_body(out, version, request)
}

/// A value list the host handed over that does not parse: the caller's fault.
pub fn local_error(e: ProtocolError) -> LocalError {
    LocalError(e.to_string())
}

/// What `encode_body` refuses before writing: a batch too large to count, or a malformed
/// value list (`message::check_values`).
#[inline]
pub fn check_request(request: &Request) -> Result<(), LocalError> {
    match request {
        Request::Query { values, .. } | Request::Execute { values, .. } => {
            message::check_values(values).map(drop).map_err(local_error)
        }
        Request::Batch { statements, .. } => check_batch(statements),
        Request::Prepare { .. } | Request::Register { .. } => Ok(()),
    }
}

#[inline(never)] // apart, so the common single-statement check stays small
fn check_batch(statements: &[BatchStatement]) -> Result<(), LocalError> {
    if statements.len() > u16::MAX as usize {
        return Err(LocalError(format!("a batch holds at most 65535 statements, got {}", statements.len())));
    }
    for s in statements.iter() {
        let v = match s {
            BatchStatement::Query { values, .. } | BatchStatement::Prepared { values, .. } => values,
        };
        message::check_values(v).map_err(local_error)?;
    }
    Ok(())
}

/// Appends the body of a request `check_request` (or an equivalent pass, such as the session's
/// walk that also finds the partition key) has accepted.
pub fn write_body(out: &mut Vec<u8>, version: u8, request: &Request) -> Result<(), LocalError> {
    let start = out.len();
    {
        let mut w = Writer::new(out);
        match request {
            Request::Query { cql, values, options } => {
                w.long_string(cql);
                message::write_query_parameters(&mut w, version, values, options);
            }
            Request::Prepare { cql, keyspace } => {
                w.long_string(cql);
                if version >= 5 {
                    match keyspace {
                        Some(k) => {
                            w.u32(0x01);
                            w.string(k);
                        }
                        None => w.u32(0),
                    }
                }
            }
            Request::Execute { id, result_metadata_id, values, options } => {
                w.short_bytes(id);
                if version >= 5 {
                    w.short_bytes(result_metadata_id.unwrap_or(&[]));
                }
                message::write_query_parameters(&mut w, version, values, options);
            }
            Request::Batch { kind, statements, options } => {
                message::write_batch(&mut w, version, *kind, statements, options);
            }
            Request::Register { events } => {
                w.u16(events.len() as u16);
                for e in events.iter() {
                    w.string(e);
                }
            }
        }
    }
    if out.len() - start > i32::MAX as usize {
        return Err(LocalError("request body exceeds 2 GiB".into()));
    }
    Ok(())
}

fn proto(field: &'static str, offset: usize, message: String) -> CloseReason {
    let e = ProtocolError::remote(field, offset, message);
    CloseReason::from_protocol(&e)
}

/// Compresses each v4 frame's body in `frames` and sets its compression flag.
fn compress_frames(algorithm: Compression, frames: &[u8], out: &mut Vec<u8>) {
    let mut at = 0;
    while at + HEADER_LEN <= frames.len() {
        let len = u32::from_be_bytes([frames[at + 5], frames[at + 6], frames[at + 7], frames[at + 8]]) as usize;
        let end = (at + HEADER_LEN + len).min(frames.len());
        let start = out.len();
        out.extend_from_slice(&frames[at..at + HEADER_LEN]);
        if algorithm.compress(&frames[at + HEADER_LEN..end], out).is_err() {
            // Only bodies over 4 GiB fail, and the encoder never builds those: send as is.
            out.truncate(start);
            out.extend_from_slice(&frames[at..end]);
        } else {
            out[start + 1] |= flags::COMPRESSION;
            let body_len = (out.len() - start - HEADER_LEN) as u32;
            out[start + 5..start + 9].copy_from_slice(&body_len.to_be_bytes());
        }
        at = end;
    }
}

/// Skips the tracing id, warnings and custom payload that `frame_flags` announce.
/// Most answers have no prefix: returned as they are without a walk (the session looks for
/// a DDL's answer in every response, issue #17).
#[inline]
pub fn skip_response_prefix(body: &[u8], frame_flags: u8) -> Result<&[u8], ProtocolError> {
    if frame_flags & (flags::TRACING | flags::WARNING | flags::CUSTOM_PAYLOAD) == 0 {
        return Ok(body);
    }
    visit_response_prefix(body, frame_flags, |_, _| {})
}

/// Like [`skip_response_prefix`], showing `payload` each custom payload entry on the way.
pub fn visit_response_prefix<'a>(
    body: &'a [u8],
    frame_flags: u8,
    mut payload: impl FnMut(&'a str, Option<&'a [u8]>),
) -> Result<&'a [u8], ProtocolError> {
    let mut r = Reader::new(body);
    if frame_flags & flags::TRACING != 0 {
        r.bytes(16, "tracing id")?;
    }
    if frame_flags & flags::WARNING != 0 {
        r.string_list("warnings")?;
    }
    if frame_flags & flags::CUSTOM_PAYLOAD != 0 {
        let n = r.u16("custom payload count")?;
        for _ in 0..n {
            let key = r.string("custom payload key")?;
            payload(key, r.bytes_opt("custom payload value")?);
        }
    }
    Ok(r.rest())
}

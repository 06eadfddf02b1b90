//! The connection state machine on simulated time: no sockets, every byte hand-built.

use cqlwire_core::connection::{stream_of_id, CloseReason, Config, Connection, Credentials, Event, Request, RequestError, State};
use cqlwire_core::message::QueryOptions;

const MS: u64 = 1_000;

fn response(stream: i16, opcode: u8, body: &[u8]) -> Vec<u8> {
    let mut f = vec![0x84, 0];
    f.extend_from_slice(&stream.to_be_bytes());
    f.push(opcode);
    f.extend_from_slice(&(body.len() as u32).to_be_bytes());
    f.extend_from_slice(body);
    f
}

fn supported() -> Vec<u8> {
    // {"CQL_VERSION": ["3.4.7"]}
    let mut b = vec![0, 1];
    b.extend_from_slice(&[0, 11]);
    b.extend_from_slice(b"CQL_VERSION");
    b.extend_from_slice(&[0, 1, 0, 5]);
    b.extend_from_slice(b"3.4.7");
    response(0, 0x06, &b)
}

fn void_result(stream: i16) -> Vec<u8> {
    response(stream, 0x08, &1i32.to_be_bytes())
}

/// Parses the frames a connection wrote: (stream, opcode, body).
fn frames(bytes: &[u8]) -> Vec<(i16, u8, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        assert!(bytes.len() - at >= 9, "truncated frame header in output");
        let stream = i16::from_be_bytes([bytes[at + 2], bytes[at + 3]]);
        let opcode = bytes[at + 4];
        let len = u32::from_be_bytes(bytes[at + 5..at + 9].try_into().unwrap()) as usize;
        out.push((stream, opcode, bytes[at + 9..at + 9 + len].to_vec()));
        at += 9 + len;
    }
    out
}

fn transmit(c: &mut Connection) -> Vec<(i16, u8, Vec<u8>)> {
    let mut buf = Vec::new();
    c.poll_transmit(&mut buf);
    frames(&buf)
}

#[derive(Debug, PartialEq)]
enum Ev {
    Ready,
    Response(u32, Vec<u8>),
    Failed(u32, String),
    Closed(String),
    Server,
    Auth(String),
}

fn events(c: &mut Connection) -> Vec<Ev> {
    let mut out = Vec::new();
    while let Some(e) = c.poll_event() {
        out.push(match e {
            Event::Ready { .. } => Ev::Ready,
            Event::Response { id, body, .. } => Ev::Response(id, body.to_vec()),
            Event::Failed { id, error } => Ev::Failed(id, serde_json::to_string(&error).unwrap()),
            Event::Closed(r) => Ev::Closed(serde_json::to_string(&r).unwrap()),
            Event::ServerEvent(_) => Ev::Server,
            Event::Auth(step) => Ev::Auth(format!("{step:?}")),
        });
    }
    out
}

fn ready_connection(config: Config) -> Connection {
    let mut c = Connection::new(config);
    c.start(0);
    let out = transmit(&mut c);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].1, 0x05, "OPTIONS first");
    c.handle_bytes(1, &supported());
    let out = transmit(&mut c);
    assert_eq!(out[0].1, 0x01, "then STARTUP");
    c.handle_bytes(2, &response(0, 0x02, &[]));
    assert_eq!(events(&mut c), vec![Ev::Ready]);
    assert_eq!(c.state(), State::Ready);
    c
}

fn query(c: &mut Connection, now: u64) -> u32 {
    c.start_request(now, Request::Query { cql: "SELECT 1", values: &[], options: QueryOptions::default() }, None)
        .unwrap()
}

#[test]
fn handshake_whole_and_byte_by_byte() {
    for split in [false, true] {
        let mut c = Connection::new(Config::default());
        c.start(0);
        transmit(&mut c);
        let bytes = supported();
        if split {
            for b in &bytes {
                c.handle_bytes(1, std::slice::from_ref(b));
            }
        } else {
            c.handle_bytes(1, &bytes);
        }
        let startup = transmit(&mut c);
        assert_eq!(startup[0].1, 0x01);
        let body = String::from_utf8_lossy(&startup[0].2).to_string();
        assert!(body.contains("CQL_VERSION") && body.contains("3.0.0"));
        c.handle_bytes(2, &response(0, 0x02, &[]));
        assert_eq!(events(&mut c), vec![Ev::Ready]);
    }
}

#[test]
fn auth_sends_plain_token_and_never_leaks_the_password_in_debug() {
    let creds = Credentials { username: "cassandra".into(), password: "s3cret".into() };
    assert!(!format!("{creds:?}").contains("s3cret"));
    let mut c = Connection::new(Config { credentials: Some(creds), ..Config::default() });
    c.start(0);
    transmit(&mut c);
    c.handle_bytes(1, &supported());
    transmit(&mut c);
    let mut auth = vec![0, 47];
    auth.extend_from_slice(b"org.apache.cassandra.auth.PasswordAuthenticator");
    c.handle_bytes(2, &response(0, 0x03, &auth));
    let out = transmit(&mut c);
    assert_eq!(out[0].1, 0x0F);
    assert_eq!(&out[0].2[4..], b"\0cassandra\0s3cret");
    c.handle_bytes(3, &response(0, 0x10, &[0xff, 0xff, 0xff, 0xff]));
    assert_eq!(events(&mut c), vec![Ev::Ready]);
}

#[test]
fn wrong_password_closes_with_a_clear_auth_error() {
    let creds = Credentials { username: "cassandra".into(), password: "wrong".into() };
    let mut c = Connection::new(Config { credentials: Some(creds), ..Config::default() });
    c.start(0);
    c.handle_bytes(1, &supported());
    let mut auth = vec![0, 4];
    auth.extend_from_slice(b"Auth");
    c.handle_bytes(2, &response(0, 0x03, &auth));
    let mut err = 0x0100i32.to_be_bytes().to_vec();
    let msg = b"Provided username cassandra and/or password are incorrect";
    err.extend_from_slice(&(msg.len() as u16).to_be_bytes());
    err.extend_from_slice(msg);
    c.handle_bytes(3, &response(0, 0x00, &err));
    let ev = events(&mut c);
    match &ev[..] {
        [Ev::Closed(reason)] => {
            assert!(reason.contains("\"kind\":\"auth\""), "{reason}");
            assert!(reason.contains("incorrect"));
            assert!(!reason.contains("wrong"), "the password must not appear: {reason}");
        }
        other => panic!("expected one Closed event, got {other:?}"),
    }
    assert_eq!(c.state(), State::Closed);
}

#[test]
fn responses_are_matched_by_stream_even_out_of_order() {
    let mut c = ready_connection(Config::default());
    let a = query(&mut c, 10);
    let b = query(&mut c, 10);
    let out = transmit(&mut c);
    assert_eq!(out.len(), 2, "two requests leave in one transmit");
    let (sa, sb) = (out[0].0, out[1].0);
    assert_ne!(sa, sb);
    assert_ne!(sa, 0, "stream 0 is kept for the handshake");
    let mut both = void_result(sb);
    both.extend(void_result(sa));
    c.handle_bytes(20, &both);
    assert_eq!(
        events(&mut c),
        vec![Ev::Response(b, 1i32.to_be_bytes().to_vec()), Ev::Response(a, 1i32.to_be_bytes().to_vec())]
    );
    assert_eq!(c.in_flight(), 0);
}

/// Two stream ids for requests (max_streams 3: stream 0 is the handshake's), 100 ms timeout.
fn two_user_streams() -> Connection {
    ready_connection(Config { request_timeout_us: 100 * MS, heartbeat_interval_us: 0, max_streams: 3, ..Config::default() })
}

#[test]
fn timed_out_stream_is_orphaned_until_its_late_answer() {
    let mut c = two_user_streams();
    let a = query(&mut c, 0);
    let sa = transmit(&mut c)[0].0;
    assert_eq!(c.poll_timeout(), Some(100 * MS));
    c.handle_timeout(50 * MS); // spurious: nothing is due
    assert!(events(&mut c).is_empty());
    c.handle_timeout(100 * MS);
    match &events(&mut c)[..] {
        [Ev::Failed(id, e)] => {
            assert_eq!(*id, a);
            assert!(e.contains("timeout"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(c.orphans(), 1);
    // With the orphan still reserved, the only other stream id serves the next request,
    // and a third request must queue rather than reuse the orphan.
    let b = query(&mut c, 101 * MS);
    let sb = transmit(&mut c)[0].0;
    assert_ne!(sb, sa);
    let q = query(&mut c, 101 * MS);
    assert!(transmit(&mut c).is_empty());
    assert_eq!(c.queued(), 1);
    // The late answer frees the orphan, which goes to the queued request at once.
    c.handle_bytes(150 * MS, &void_result(sa));
    assert!(events(&mut c).is_empty(), "a late answer is dropped, not delivered");
    assert_eq!(c.orphans(), 0);
    let out = transmit(&mut c);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0, sa);
    c.handle_bytes(160 * MS, &void_result(sa));
    c.handle_bytes(160 * MS, &void_result(sb));
    let ev = events(&mut c);
    assert_eq!(ev.len(), 2);
    assert!(ev.contains(&Ev::Response(q, 1i32.to_be_bytes().to_vec())));
    assert!(ev.contains(&Ev::Response(b, 1i32.to_be_bytes().to_vec())));
}

#[test]
fn backpressure_queues_and_never_fails_for_lack_of_stream_ids() {
    let mut c = ready_connection(Config { max_streams: 5, heartbeat_interval_us: 0, ..Config::default() });
    let ids: Vec<u32> = (0..100).map(|_| query(&mut c, 0)).collect();
    let mut delivered = Vec::new();
    let mut guard = 0;
    while delivered.len() < ids.len() {
        guard += 1;
        assert!(guard < 1000);
        let out = transmit(&mut c);
        assert!(out.len() <= 4, "never more in flight than stream ids");
        let mut answers = Vec::new();
        for (stream, _, _) in out {
            answers.extend(void_result(stream));
        }
        c.handle_bytes(1, &answers);
        for e in events(&mut c) {
            match e {
                Ev::Response(id, _) => delivered.push(id),
                other => panic!("{other:?}"),
            }
        }
    }
    assert_eq!(delivered, ids, "queued requests keep their order");
}

#[test]
fn cancel_orphans_the_stream() {
    let mut c = ready_connection(Config::default());
    let a = query(&mut c, 0);
    let sa = transmit(&mut c)[0].0;
    c.cancel(1, a);
    assert_eq!(c.orphans(), 1);
    c.handle_bytes(2, &void_result(sa));
    assert!(events(&mut c).is_empty());
    assert_eq!(c.orphans(), 0);
}

/// A request's id names the stream it went out on; a queued request's names none
/// (`stream_of_id`), and every id stays distinct.
#[test]
fn request_ids_name_their_streams_and_queued_ones_none() {
    let mut c = two_user_streams();
    let (a, b) = (query(&mut c, 0), query(&mut c, 0));
    let streams: Vec<i16> = transmit(&mut c).iter().map(|f| f.0).collect();
    assert_eq!(streams.iter().map(|&s| Some(s as usize)).collect::<Vec<_>>(), vec![stream_of_id(a), stream_of_id(b)]);
    let (q1, q2) = (query(&mut c, 0), query(&mut c, 0));
    assert_eq!((stream_of_id(q1), stream_of_id(q2)), (None, None));
    assert_ne!(q1, q2);
    // The same stream again: a new id.
    c.handle_bytes(1, &void_result(streams[0]));
    events(&mut c);
    c.handle_bytes(1, &void_result(streams[0]));
    events(&mut c);
    c.handle_bytes(1, &void_result(streams[0]));
    events(&mut c);
    let again = query(&mut c, 1);
    assert_eq!(stream_of_id(again), Some(streams[0] as usize));
    assert!(![a, b, q1, q2].contains(&again));
}

/// More requests queue than a stream id has values: their ids still differ (the counter's
/// high bits move up past the queued marker, not away).
#[test]
fn queued_ids_stay_distinct_past_32768_of_them() {
    let mut c = two_user_streams();
    query(&mut c, 0);
    query(&mut c, 0);
    let ids: std::collections::HashSet<u32> = (0..40_000).map(|_| query(&mut c, 0)).collect();
    assert_eq!(ids.len(), 40_000);
    assert!(ids.iter().all(|&id| stream_of_id(id).is_none()));
}

/// Cancelling a request that waited for a stream and went out since: its stream is orphaned,
/// its late answer dropped, and the other request's answer still delivered.
#[test]
fn cancel_finds_a_request_that_was_queued_then_sent() {
    let mut c = two_user_streams();
    let (a, b) = (query(&mut c, 0), query(&mut c, 0));
    let out = transmit(&mut c);
    let q = query(&mut c, 0);
    c.handle_bytes(1, &void_result(out[0].0));
    assert_eq!(events(&mut c), vec![Ev::Response(a, 1i32.to_be_bytes().to_vec())]);
    assert_eq!(transmit(&mut c)[0].0, out[0].0, "the queued request took the freed stream");
    c.cancel(2, q);
    assert_eq!((c.in_flight(), c.orphans()), (1, 1));
    c.handle_bytes(3, &void_result(out[0].0));
    c.handle_bytes(3, &void_result(out[1].0));
    assert_eq!(events(&mut c), vec![Ev::Response(b, 1i32.to_be_bytes().to_vec())]);
    assert_eq!((c.in_flight(), c.orphans()), (0, 0));
}

/// Cancelling a queued request removes it: it never goes out; a second cancel, or one of an
/// id already answered, changes nothing.
#[test]
fn cancel_of_a_queued_request_unqueues_it_and_stale_cancels_do_nothing() {
    let mut c = two_user_streams();
    let (a, _b) = (query(&mut c, 0), query(&mut c, 0));
    let out = transmit(&mut c);
    let q = query(&mut c, 0);
    c.cancel(1, q);
    c.cancel(1, q);
    assert_eq!(c.queued(), 0);
    c.handle_bytes(2, &void_result(out[0].0));
    assert_eq!(events(&mut c), vec![Ev::Response(a, 1i32.to_be_bytes().to_vec())]);
    assert!(transmit(&mut c).is_empty(), "the cancelled request never goes out");
    c.cancel(3, a);
    assert_eq!((c.in_flight(), c.orphans()), (1, 0));
}

#[test]
fn too_many_orphans_drains_the_connection() {
    let mut c = ready_connection(Config {
        orphan_limit: 2,
        request_timeout_us: MS,
        heartbeat_interval_us: 0,
        ..Config::default()
    });
    for _ in 0..3 {
        query(&mut c, 0);
    }
    c.handle_timeout(MS);
    assert_eq!(c.state(), State::Draining);
    assert!(c
        .start_request(2, Request::Query { cql: "x", values: &[], options: QueryOptions::default() }, None)
        .is_err());
}

#[test]
fn heartbeat_on_idle_and_close_when_unanswered() {
    let mut c = ready_connection(Config {
        heartbeat_interval_us: 1000 * MS,
        request_timeout_us: 100 * MS,
        ..Config::default()
    });
    assert_eq!(c.poll_timeout(), Some(2 + 1000 * MS));
    c.handle_timeout(2 + 1000 * MS);
    let out = transmit(&mut c);
    assert_eq!(out[0].1, 0x05, "OPTIONS as heartbeat");
    // Answered: the heartbeat is silent and the next one is scheduled.
    let mut sup = supported();
    sup[2..4].copy_from_slice(&out[0].0.to_be_bytes());
    c.handle_bytes(1100 * MS, &sup);
    assert!(events(&mut c).is_empty());
    c.handle_timeout(2100 * MS);
    transmit(&mut c);
    c.handle_timeout(2300 * MS);
    match &events(&mut c)[..] {
        [Ev::Closed(r)] => assert!(r.contains("heartbeat")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn eof_fails_everything_in_flight() {
    let mut c = ready_connection(Config::default());
    let a = query(&mut c, 0);
    c.handle_eof(1);
    let ev = events(&mut c);
    assert!(matches!(&ev[0], Ev::Failed(id, e) if *id == a && e.contains("closed")));
    assert!(matches!(&ev[1], Ev::Closed(_)));
}

#[test]
fn hostile_frames_close_with_a_named_remote_error() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![0x84, 0, 0, 1, 0x33, 0, 0, 0, 0], "frame header opcode"),
        (vec![0x01, 0, 0, 1, 0x08, 0, 0, 0, 0], "frame header version"),
        (vec![0x84, 0, 0, 1, 0x08, 0x7f, 0xff, 0xff, 0xff], "frame header length"),
        (void_result(77), "frame header stream"),
        (vec![0x84, 0x01, 0, 1, 0x08, 0, 0, 0, 0], "frame header flags"),
    ];
    for (bytes, field) in cases {
        let mut c = ready_connection(Config { max_frame_bytes: 1 << 20, ..Config::default() });
        query(&mut c, 0);
        transmit(&mut c);
        c.handle_bytes(1, &bytes);
        let ev = events(&mut c);
        let closed =
            ev.iter().find_map(|e| if let Ev::Closed(r) = e { Some(r.clone()) } else { None }).expect("closed");
        assert!(closed.contains(field), "{field}: {closed}");
        assert!(closed.contains("\"side\":\"remote\""), "{closed}");
    }
}

#[test]
fn a_server_frame_without_the_response_bit_closes_the_connection() {
    let mut c = ready_connection(Config::default());
    let id = query(&mut c, 0);
    transmit(&mut c);
    let mut request_direction = void_result(1);
    request_direction[0] = 0x04;
    c.handle_bytes(1, &request_direction);
    let ev = events(&mut c);
    let closed =
        ev.iter().find_map(|e| if let Ev::Closed(r) = e { Some(r.clone()) } else { None }).expect("closed");
    let reason: serde_json::Value = serde_json::from_str(&closed).unwrap();
    assert_eq!(reason["side"], "remote", "{closed}");
    assert_eq!(reason["field"], "frame header version", "{closed}");
    assert_eq!(reason["offset"], 0, "{closed}");
    assert!(
        closed.contains("remote protocol error in frame header version at byte 0: the server sent a request frame"),
        "{closed}"
    );
    assert!(!ev.contains(&Ev::Response(id, 1i32.to_be_bytes().to_vec())), "the frame must not answer the query");
}

#[test]
fn server_error_keeps_its_fields() {
    let mut c = ready_connection(Config::default());
    let a = query(&mut c, 0);
    let s = transmit(&mut c)[0].0;
    let mut err = 0x1000i32.to_be_bytes().to_vec();
    err.extend_from_slice(&[0, 4]);
    err.extend_from_slice(b"nope");
    err.extend_from_slice(&4u16.to_be_bytes()); // QUORUM
    err.extend_from_slice(&2i32.to_be_bytes());
    err.extend_from_slice(&1i32.to_be_bytes());
    c.handle_bytes(1, &response(s, 0x00, &err));
    match &events(&mut c)[..] {
        [Ev::Failed(id, e)] => {
            assert_eq!(*id, a);
            for want in ["\"name\":\"Unavailable\"", "\"consistency\":\"QUORUM\"", "\"required\":2", "\"alive\":1"] {
                assert!(e.contains(want), "{want} in {e}");
            }
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_values_are_a_local_error() {
    let mut c = ready_connection(Config::default());
    let bad = [0u8, 1, 0, 0, 0, 9, 1];
    let r = c.start_request(0, Request::Query { cql: "x", values: &bad, options: QueryOptions::default() }, None);
    assert!(r.unwrap_err().0.contains("local protocol error in value"));
    assert!(transmit(&mut c).is_empty());
}

#[test]
fn version_refused_names_the_fallback() {
    let mut c = Connection::new(Config { protocol_version: 5, ..Config::default() });
    c.start(0);
    let mut err = 0x000Ai32.to_be_bytes().to_vec();
    let msg = b"Invalid or unsupported protocol version (5)";
    err.extend_from_slice(&(msg.len() as u16).to_be_bytes());
    err.extend_from_slice(msg);
    c.handle_bytes(1, &response(0, 0x00, &err));
    match &events(&mut c)[..] {
        [Ev::Closed(r)] => assert!(r.contains("version_refused") && r.contains("\"fallback\":4"), "{r}"),
        other => panic!("{other:?}"),
    }
    let _ = CloseReason::Local { message: String::new() };
    let _ = RequestError::Closed { message: String::new(), written: false };
}

mod wire_formats {
    use super::*;
    use cqlwire_core::compression::Compression;
    use cqlwire_core::v5::{FrameDecoder, FrameEncoder};

    fn handshake(c: &mut Connection, version: u8) {
        c.start(0);
        let mut opts = Vec::new();
        c.poll_transmit(&mut opts);
        assert_eq!(opts[0], version, "OPTIONS speaks v{version}");
        let mut sup = supported();
        sup[0] = 0x80 | version;
        c.handle_bytes(1, &sup);
        let mut startup = Vec::new();
        c.poll_transmit(&mut startup);
        assert_eq!(startup[4], 0x01, "STARTUP goes unframed and uncompressed");
        let mut ready = response(0, 0x02, &[]);
        ready[0] = 0x80 | version;
        c.handle_bytes(2, &ready);
        assert_eq!(events(c), vec![Ev::Ready]);
    }

    #[test]
    fn v5_frames_after_ready_and_a_large_result_across_frames() {
        let mut c = Connection::new(Config { protocol_version: 5, ..Config::default() });
        handshake(&mut c, 5);
        let id = query(&mut c, 3);
        let mut wire = Vec::new();
        c.poll_transmit(&mut wire);
        let mut envelopes = Vec::new();
        FrameDecoder::new(false).decode_all(&wire, &mut envelopes).expect("a valid v5 frame");
        assert_eq!(envelopes[0], 5, "a v5 envelope");
        let stream = i16::from_be_bytes([envelopes[2], envelopes[3]]);
        // A 300 KiB RESULT, split by the server across non-self-contained frames.
        let mut body = 1i32.to_be_bytes().to_vec();
        body.extend(std::iter::repeat_n(0xAB, 300 * 1024));
        let mut envelope = response(stream, 0x08, &body);
        envelope[0] = 0x85;
        let mut framed = Vec::new();
        FrameEncoder::new(false).encode_large(&envelope, &mut framed).unwrap();
        for chunk in framed.chunks(7000) {
            c.handle_bytes(4, chunk);
        }
        match &events(&mut c)[..] {
            [Ev::Response(got, b)] => {
                assert_eq!(*got, id);
                assert_eq!(b.len(), body.len());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn v5_corrupt_crc_closes_naming_the_field() {
        let mut c = Connection::new(Config { protocol_version: 5, ..Config::default() });
        handshake(&mut c, 5);
        query(&mut c, 3);
        let mut envelope = void_result(1);
        envelope[0] = 0x85;
        let mut framed = Vec::new();
        FrameEncoder::new(false).encode_self_contained(&envelope, &mut framed).unwrap();
        let last = framed.len() - 1;
        framed[last] ^= 0xFF;
        c.handle_bytes(4, &framed);
        let ev = events(&mut c);
        let closed = ev.iter().find_map(|e| if let Ev::Closed(r) = e { Some(r.clone()) } else { None }).expect("closed");
        assert!(closed.contains("crc32") && closed.contains("remote"), "{closed}");
    }

    #[test]
    fn v4_lz4_and_snappy_compress_both_ways() {
        for algorithm in [Compression::Lz4, Compression::Snappy] {
            let mut c = Connection::new(Config { compression: algorithm, ..Config::default() });
            c.start(0);
            let mut b = Vec::new();
            c.poll_transmit(&mut b);
            c.handle_bytes(1, &supported());
            let mut startup = Vec::new();
            c.poll_transmit(&mut startup);
            assert!(String::from_utf8_lossy(&startup).contains("COMPRESSION"));
            // The server may compress READY already: it follows STARTUP.
            let mut ready = Vec::new();
            algorithm.compress(&[], &mut ready).unwrap();
            let mut ready_frame = response(0, 0x02, &ready);
            ready_frame[1] = 0x01;
            c.handle_bytes(2, &ready_frame);
            assert_eq!(events(&mut c), vec![Ev::Ready]);
            let id = c
                .start_request(3, Request::Query { cql: "SELECT x FROM t", values: &[], options: QueryOptions::default() }, None)
                .unwrap();
            let mut wire = Vec::new();
            c.poll_transmit(&mut wire);
            assert_eq!(wire[1] & 0x01, 0x01, "compressed flag");
            let mut plain = Vec::new();
            algorithm.decompress(&wire[9..], 1 << 20, &mut plain).unwrap();
            assert!(String::from_utf8_lossy(&plain).contains("SELECT x FROM t"));
            let stream = i16::from_be_bytes([wire[2], wire[3]]);
            let mut body = 1i32.to_be_bytes().to_vec();
            body.extend(std::iter::repeat_n(b'z', 5000));
            let mut compressed = Vec::new();
            algorithm.compress(&body, &mut compressed).unwrap();
            let mut frame = response(stream, 0x08, &compressed);
            frame[1] = 0x01;
            c.handle_bytes(4, &frame);
            assert_eq!(events(&mut c), vec![Ev::Response(id, body.clone())], "{algorithm:?}");
        }
    }

    /// A connection through OPTIONS and STARTUP at `version` with `compression` negotiated.
    fn ready_at(version: u8, compression: Compression) -> Connection {
        let mut c = Connection::new(Config { protocol_version: version, compression, ..Config::default() });
        c.start(0);
        c.poll_transmit(&mut Vec::new());
        let mut sup = supported();
        sup[0] = 0x80 | version;
        c.handle_bytes(1, &sup);
        c.poll_transmit(&mut Vec::new());
        let mut ready = response(0, 0x02, &[]);
        ready[0] = 0x80 | version;
        c.handle_bytes(2, &ready);
        assert_eq!(events(&mut c), vec![Ev::Ready]);
        c
    }

    /// A v5 burst over the keep size is framed into a wire buffer reserved once at
    /// `framed_len_bound`, then moved out with it: its capacity is that bound, where growing
    /// by doubling would have reached a power of two well above the bytes (issue #17).
    #[test]
    fn a_large_v5_burst_is_framed_into_a_buffer_sized_once() {
        use cqlwire_core::connection::BUFFER_KEEP;
        use cqlwire_core::v5::framed_len_bound;
        let mut c = ready_at(5, Compression::None);
        let cql = format!("SELECT '{}'", "x".repeat(700 * 1024));
        c.start_request(3, Request::Query { cql: &cql, values: &[], options: QueryOptions::default() }, None).unwrap();
        let mut moved = Vec::new();
        let n = c.poll_transmit(&mut moved);
        assert!(n > BUFFER_KEEP && moved.len() == n);
        let mut envelopes = Vec::new();
        FrameDecoder::new(false).decode_all(&moved, &mut envelopes).unwrap();
        assert!(envelopes.len() > 700 * 1024 && envelopes[4] == 0x07, "one QUERY envelope");
        let bound = framed_len_bound(envelopes.len());
        assert!(moved.capacity() <= bound, "capacity {} for {n} bytes, bound {bound}", moved.capacity());
    }

    /// A large frame arriving in many reads is kept in pieces and put together once, at its
    /// size, when all of it is present: the connection never holds much more than the bytes
    /// it was given (doubling a growing buffer held up to twice, and left the abandoned
    /// halves in WebAssembly memory for good; issue #17). The frame that follows it in the
    /// same read comes out too, both exactly.
    #[test]
    fn a_large_frame_is_held_at_its_size_while_it_arrives() {
        use cqlwire_core::connection::BUFFER_KEEP;
        const LARGE: usize = 8 << 20;
        // Put together rounded up to a whole MiB, beside the other buffers' BUFFER_KEEP.
        const SLACK: usize = (1 << 20) + 2 * BUFFER_KEEP;
        let mut body = 1i32.to_be_bytes().to_vec();
        body.extend((0..LARGE).map(|i| (i % 251) as u8));
        for version in [4u8, 5] {
            let mut c = ready_at(version, Compression::None);
            let big = query(&mut c, 3);
            let small = query(&mut c, 3);
            c.poll_transmit(&mut Vec::new());
            let (mut large, mut after) = (response(1, 0x08, &body), void_result(2));
            large[0] = 0x80 | version;
            after[0] = 0x80 | version;
            let wire = if version == 5 {
                let mut framed = Vec::new();
                let mut encoder = FrameEncoder::new(false);
                encoder.encode_large(&large, &mut framed).unwrap();
                encoder.encode_self_contained(&after, &mut framed).unwrap();
                framed
            } else {
                [large, after].concat()
            };
            let mut fed = 0;
            for chunk in wire.chunks(65_537) {
                c.handle_bytes(4, chunk);
                fed += chunk.len();
                let held = c.buffer_capacity();
                assert!(held <= fed + SLACK, "v{version}: {held} bytes held after {fed} bytes read");
            }
            assert_eq!(events(&mut c), vec![Ev::Response(big, body.clone()), Ev::Response(small, 1i32.to_be_bytes().to_vec())], "v{version}");
        }
    }

    /// After a 100 MiB result has been handed over, the connection's buffers (input,
    /// decompression, arena, v5 reassembly) are back near their steady-state size.
    #[test]
    fn a_large_result_does_not_pin_its_buffers() {
        use cqlwire_core::connection::BUFFER_KEEP;
        const LARGE: usize = 100 << 20;
        let mut body = 1i32.to_be_bytes().to_vec();
        body.extend((0..LARGE).map(|i| (i / 4096) as u8));
        for (version, algorithm) in
            [(4, Compression::None), (4, Compression::Lz4), (4, Compression::Snappy), (5, Compression::None), (5, Compression::Lz4)]
        {
            let mut c = ready_at(version, algorithm);
            let id = query(&mut c, 3);
            c.poll_transmit(&mut Vec::new());
            let mut frame = if version == 4 && algorithm != Compression::None {
                let mut compressed = Vec::new();
                algorithm.compress(&body, &mut compressed).unwrap();
                let mut f = response(1, 0x08, &compressed);
                f[1] = 0x01;
                f
            } else {
                response(1, 0x08, &body)
            };
            frame[0] = 0x80 | version;
            let wire = if version == 5 {
                let mut framed = Vec::new();
                FrameEncoder::new(algorithm == Compression::Lz4).encode_large(&frame, &mut framed).unwrap();
                framed
            } else {
                frame
            };
            for chunk in wire.chunks(1 << 20) {
                c.handle_bytes(4, chunk);
            }
            assert!(c.buffer_capacity() >= LARGE, "v{version} {algorithm:?}: the result is held until handed over");
            match c.poll_event() {
                Some(Event::Response { id: got, body: b, .. }) => assert_eq!((got, b.len()), (id, body.len())),
                other => panic!("v{version} {algorithm:?}: {other:?}"),
            }
            assert!(c.poll_event().is_none());
            // The next call into the connection releases the arena.
            c.handle_timeout(5);
            let kept = c.buffer_capacity();
            assert!(kept <= 4 * BUFFER_KEEP, "v{version} {algorithm:?}: {kept} bytes kept after a {LARGE}-byte result");
        }
    }
}

#[test]
fn a_custom_sasl_authenticator_answers_challenges() {
    use cqlwire_core::connection::{Authenticator, AuthenticatorFactory};
    struct Scram(u8);
    impl Authenticator for Scram {
        fn initial_response(&mut self, class: &str) -> Result<Vec<u8>, String> {
            assert_eq!(class, "com.example.ScramAuthenticator");
            Ok(b"client-first".to_vec())
        }
        fn evaluate_challenge(&mut self, challenge: Option<&[u8]>) -> Result<Vec<u8>, String> {
            self.0 += 1;
            assert_eq!(challenge, Some(&b"server-first"[..]));
            Ok(b"client-final".to_vec())
        }
    }
    let factory = AuthenticatorFactory(std::sync::Arc::new(|| Box::new(Scram(0)) as Box<dyn Authenticator>));
    let mut c = Connection::new(Config { authenticator: Some(factory), ..Config::default() });
    c.start(0);
    transmit(&mut c);
    c.handle_bytes(1, &supported());
    transmit(&mut c);
    let mut auth = vec![0, 30];
    auth.extend_from_slice(b"com.example.ScramAuthenticator");
    c.handle_bytes(2, &response(0, 0x03, &auth));
    assert_eq!(&transmit(&mut c)[0].2[4..], b"client-first");
    let mut challenge = 12i32.to_be_bytes().to_vec();
    challenge.extend_from_slice(b"server-first");
    c.handle_bytes(3, &response(0, 0x0E, &challenge));
    assert_eq!(&transmit(&mut c)[0].2[4..], b"client-final");
    c.handle_bytes(4, &response(0, 0x10, &(-1i32).to_be_bytes()));
    assert_eq!(events(&mut c), vec![Ev::Ready]);
}

/// A connection whose server just answered STARTUP with AUTHENTICATE for `class`.
fn authenticate_asked(config: Config, class: &str) -> Connection {
    let mut c = Connection::new(config);
    c.start(0);
    transmit(&mut c);
    c.handle_bytes(1, &supported());
    transmit(&mut c);
    let mut auth = (class.len() as u16).to_be_bytes().to_vec();
    auth.extend_from_slice(class.as_bytes());
    c.handle_bytes(2, &response(0, 0x03, &auth));
    c
}

#[test]
fn a_host_authenticator_is_asked_each_step_and_the_connection_waits_for_its_answer() {
    let mut c = authenticate_asked(Config { host_authenticator: true, ..Config::default() }, "com.example.ScramAuthenticator");
    assert_eq!(events(&mut c), vec![Ev::Auth(r#"Start { authenticator_class: "com.example.ScramAuthenticator" }"#.into())]);
    assert!(transmit(&mut c).is_empty(), "nothing goes out before the host answers");
    c.auth_answer(Ok(b"client-first"));
    assert_eq!(&transmit(&mut c)[0].2[4..], b"client-first");
    let mut challenge = 12i32.to_be_bytes().to_vec();
    challenge.extend_from_slice(b"server-first");
    c.handle_bytes(3, &response(0, 0x0E, &challenge));
    assert_eq!(events(&mut c), vec![Ev::Auth("Challenge { token: Some([115, 101, 114, 118, 101, 114, 45, 102, 105, 114, 115, 116]) }".into())]);
    c.auth_answer(Ok(b"client-final"));
    c.auth_answer(Ok(b"a second answer to one step"));
    let out = transmit(&mut c);
    assert_eq!(out.len(), 1, "one answer per step");
    assert_eq!(&out[0].2[4..], b"client-final");
    c.handle_bytes(4, &response(0, 0x10, &(-1i32).to_be_bytes()));
    assert_eq!(events(&mut c), vec![Ev::Auth("Success { token: None }".into()), Ev::Ready]);
}

#[test]
fn a_host_authenticator_error_closes_with_an_auth_error() {
    let mut c = authenticate_asked(Config { host_authenticator: true, ..Config::default() }, "X");
    events(&mut c);
    c.auth_answer(Err("no ticket"));
    assert!(transmit(&mut c).is_empty());
    let closed = events(&mut c);
    assert_eq!(closed.len(), 1);
    let Ev::Closed(reason) = &closed[0] else { panic!("{closed:?}") };
    assert!(reason.contains("authenticator failed: no ticket"), "{reason}");
}

#[test]
fn a_host_authenticator_that_never_answers_is_closed_by_the_handshake_deadline() {
    let mut c = authenticate_asked(Config { host_authenticator: true, handshake_timeout_us: 1_000, ..Config::default() }, "X");
    events(&mut c);
    c.handle_timeout(5_000);
    let closed = events(&mut c);
    assert!(matches!(closed.as_slice(), [Ev::Closed(r)] if r.contains("handshake")), "{closed:?}");
}

// ---- Scylla's extensions in the handshake ------------------------------------------------------

fn supported_body(pairs: &[(&str, &[&str])]) -> Vec<u8> {
    let mut b = (pairs.len() as u16).to_be_bytes().to_vec();
    let put = |b: &mut Vec<u8>, s: &str| {
        b.extend_from_slice(&(s.len() as u16).to_be_bytes());
        b.extend_from_slice(s.as_bytes());
    };
    for (k, vs) in pairs {
        put(&mut b, k);
        b.extend_from_slice(&(vs.len() as u16).to_be_bytes());
        for v in *vs {
            put(&mut b, v);
        }
    }
    b
}

/// The string map of the STARTUP a connection sends after this SUPPORTED.
fn startup_after(pairs: &[(&str, &[&str])]) -> Vec<(String, String)> {
    let mut c = Connection::new(Config::default());
    c.start(0);
    transmit(&mut c);
    c.handle_bytes(0, &response(0, 0x06, &supported_body(pairs)));
    let out = transmit(&mut c);
    assert_eq!(out[0].1, 0x01, "a STARTUP");
    let body = &out[0].2;
    let mut at = 2;
    let mut read = || {
        let len = u16::from_be_bytes([body[at], body[at + 1]]) as usize;
        let s = String::from_utf8(body[at + 2..at + 2 + len].to_vec()).unwrap();
        at += 2 + len;
        s
    };
    (0..u16::from_be_bytes([body[0], body[1]])).map(|_| (read(), read())).collect()
}

#[test]
fn startup_asks_for_the_scylla_extensions_the_core_implements() {
    let sent = startup_after(&[
        ("SCYLLA_NR_SHARDS", &["4"]),
        ("SCYLLA_SHARD", &["1"]),
        ("TABLETS_ROUTING_V1", &[]),
        // Offered, never asked for: negotiating it would add a byte to every EXECUTE (see
        // core/src/scylla.rs); a driver that asks for v1 alone keeps v1's payloads.
        ("TABLETS_ROUTING_V2_EXPERIMENTAL", &[]),
        ("SCYLLA_LWT_ADD_METADATA_MARK", &["LWT_OPTIMIZATION_META_BIT_MASK=2147483648"]),
        ("SCYLLA_RATE_LIMIT_ERROR", &["ERROR_CODE=61440"]),
    ]);
    let extensions: Vec<(&str, &str)> = sent.iter().skip(3).map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        extensions,
        [
            ("SCYLLA_LWT_ADD_METADATA_MARK", "LWT_OPTIMIZATION_META_BIT_MASK=2147483648"),
            ("SCYLLA_RATE_LIMIT_ERROR", ""),
            ("TABLETS_ROUTING_V1", ""),
        ]
    );
    assert_eq!(startup_after(&[("CQL_VERSION", &["3.4.7"])]).len(), 3, "Cassandra gets the plain STARTUP");
}

#[test]
fn a_malformed_scylla_value_in_supported_closes_naming_the_key() {
    let mut c = Connection::new(Config::default());
    c.start(0);
    transmit(&mut c);
    c.handle_bytes(0, &response(0, 0x06, &supported_body(&[("SCYLLA_NR_SHARDS", &["many"])])));
    let expected = CloseReason::Protocol {
        message: "remote protocol error in SCYLLA_NR_SHARDS at byte 0: \"many\" is not a u16 integer".into(),
        side: cqlwire_core::error::Side::Remote,
        field: "SCYLLA_NR_SHARDS",
        offset: 0,
    };
    assert_eq!(events(&mut c), vec![Ev::Closed(serde_json::to_string(&expected).unwrap())]);
}

#[test]
fn a_silent_server_fails_the_handshake_at_its_deadline() {
    // Stuck at every step: no SUPPORTED, no READY after STARTUP, no AUTH_SUCCESS.
    for answered in 0..3 {
        let config = Config {
            handshake_timeout_us: 3_000 * MS,
            credentials: Some(Credentials { username: "u".into(), password: "p".into() }),
            ..Config::default()
        };
        let mut c = Connection::new(config);
        c.start(100);
        assert_eq!(c.poll_timeout(), Some(100 + 3_000 * MS), "a deadline before READY");
        if answered >= 1 {
            c.handle_bytes(200, &supported());
        }
        if answered >= 2 {
            let mut auth = vec![0, 5];
            auth.extend_from_slice(b"plain");
            c.handle_bytes(300, &response(0, 0x03, &auth));
        }
        transmit(&mut c);
        // Answers do not push the deadline back: a server dripping bytes cannot hold the slot.
        assert_eq!(c.poll_timeout(), Some(100 + 3_000 * MS));
        c.handle_timeout(99 + 3_000 * MS);
        assert_ne!(c.state(), State::Closed, "not before the deadline");
        c.handle_timeout(100 + 3_000 * MS);
        assert_eq!(c.state(), State::Closed);
        let step = ["Options", "Startup", "Authenticating"][answered];
        let closed = format!(
            "{{\"kind\":\"handshake_timeout\",\"message\":\"the server did not complete the handshake within 3000 ms (stuck in {step})\"}}"
        );
        assert_eq!(events(&mut c), vec![Ev::Closed(closed)]);
        assert_eq!(c.poll_timeout(), None);
    }
}

#[test]
fn a_ready_connection_has_no_handshake_deadline() {
    let mut c = ready_connection(Config { handshake_timeout_us: 10 * MS, heartbeat_interval_us: 0, ..Config::default() });
    assert_eq!(c.poll_timeout(), None);
    c.handle_timeout(60_000 * MS);
    assert_eq!(c.state(), State::Ready);
}

/// The transport may look at the pending bytes, not take them, and more requests start
/// meanwhile: the next look has the earlier frame and then the new one, once each.
#[test]
fn bytes_left_unsent_go_out_before_later_frames() {
    let mut c = ready_connection(Config::default());
    query(&mut c, 3);
    let looked = frames(c.transmit_buffer());
    assert_eq!(looked.len(), 1);
    query(&mut c, 4);
    let sent = transmit(&mut c);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[0], looked[0]);
    assert_eq!((sent[1].1, sent[1].2.clone()), (looked[0].1, looked[0].2.clone()), "the same QUERY");
    assert_ne!(sent[1].0, looked[0].0, "on its own stream");
    assert_eq!(transmit(&mut c), Vec::new(), "taken once");
}

#[test]
fn queued_requests_keep_their_own_deadlines_and_finished_ones_leave_the_timer() {
    // a and b take the two user streams, q1 and q2 queue.
    let mut c = two_user_streams();
    let a = query(&mut c, 0);
    let b = query(&mut c, 5 * MS);
    let sent = transmit(&mut c);
    assert_eq!(sent.len(), 2);
    let q1 = query(&mut c, 10 * MS);
    let q2 = query(&mut c, 20 * MS);
    assert!(transmit(&mut c).is_empty());
    assert_eq!(c.queued(), 2);
    // a's answer frees its stream for q1; a's deadline leaves the timer, b's is next.
    c.handle_bytes(30 * MS, &void_result(sent[0].0));
    assert_eq!(events(&mut c), vec![Ev::Response(a, 1i32.to_be_bytes().to_vec())]);
    assert_eq!(transmit(&mut c).len(), 1, "q1 goes out on a's stream");
    assert_eq!(c.queued(), 1);
    assert_eq!(c.poll_timeout(), Some(105 * MS));
    // Each times out at its own start plus the timeout, q2 while still queued.
    for (at, id) in [(105 * MS, b), (110 * MS, q1), (120 * MS, q2)] {
        assert_eq!(c.poll_timeout(), Some(at));
        c.handle_timeout(at);
        match &events(&mut c)[..] {
            [Ev::Failed(failed, e)] => assert!(*failed == id && e.contains("timeout"), "{failed} {e}"),
            other => panic!("at {at}: {other:?}"),
        }
    }
    assert_eq!(c.queued(), 0);
    assert_eq!(c.poll_timeout(), None, "nothing left to wait for");
}

#[test]
fn a_queued_request_with_the_earliest_deadline_keeps_it_through_reads() {
    // The two user streams carry long requests; behind them q1 and then q2 queue, q2 with the
    // shortest timeout of all: its deadline is the earliest, though it is not first in line.
    let mut c = ready_connection(Config { heartbeat_interval_us: 0, max_streams: 3, ..Config::default() });
    let timed = |c: &mut Connection, now: u64, timeout: u64| {
        c.start_request(now, Request::Query { cql: "SELECT 1", values: &[], options: QueryOptions::default() }, Some(timeout))
            .unwrap()
    };
    timed(&mut c, 0, 1000 * MS);
    timed(&mut c, 0, 1000 * MS);
    assert_eq!(transmit(&mut c).len(), 2);
    let q1 = timed(&mut c, 0, 80 * MS);
    let q2 = timed(&mut c, 0, 50 * MS);
    assert_eq!(c.queued(), 2);
    // A read drops finished requests' deadlines from the timer: never a waiting one's.
    c.handle_bytes(10 * MS, &[]);
    assert_eq!(c.poll_timeout(), Some(50 * MS));
    for (at, id) in [(50 * MS, q2), (80 * MS, q1)] {
        c.handle_timeout(at);
        match &events(&mut c)[..] {
            [Ev::Failed(failed, e)] => assert!(*failed == id && e.contains("timeout"), "{failed} {e}"),
            other => panic!("at {at}: {other:?}"),
        }
        c.handle_bytes(at, &[]);
    }
    assert_eq!(c.queued(), 0);
    assert_eq!(c.poll_timeout(), Some(1000 * MS));
}

/// A large output moves into an empty buffer instead of being copied (issue #17): the bytes
/// are those a copy into a non-empty buffer appends, the connection keeps none of them (the
/// next output holds only the next request) and its buffers are back under their keep size.
#[test]
fn a_large_output_moves_out_with_its_buffer_exactly_as_copied() {
    let cql = format!("SELECT '{}'", "x".repeat(700 * 1024));
    let large = |c: &mut Connection| c.start_request(3, Request::Query { cql: &cql, values: &[], options: QueryOptions::default() }, None).unwrap();
    let (mut moved, mut copied) = (ready_connection(Config::default()), ready_connection(Config::default()));
    large(&mut moved);
    large(&mut copied);
    let mut into_empty = Vec::new();
    let n = moved.poll_transmit(&mut into_empty);
    let mut after_prefix = b"prefix".to_vec();
    assert_eq!(copied.poll_transmit(&mut after_prefix), n);
    assert_eq!(into_empty.len(), n);
    assert_eq!(&after_prefix[..6], b"prefix");
    assert_eq!(into_empty, after_prefix[6..]);
    let sent = frames(&into_empty);
    assert_eq!(sent.len(), 1);
    assert_eq!((sent[0].1, sent[0].2.len() > 700 * 1024), (0x07, true));
    assert!(moved.buffer_capacity() <= 512 * 1024, "kept {} bytes", moved.buffer_capacity());
    query(&mut moved, 4);
    let next = transmit(&mut moved);
    assert_eq!(next.len(), 1);
    assert_eq!((next[0].1, next[0].2.len() < 100), (0x07, true));
}

#[test]
fn a_second_answer_on_the_same_stream_closes_the_connection_naming_the_stream() {
    let mut c = ready_connection(Config::default());
    let a = query(&mut c, 0);
    let sa = transmit(&mut c)[0].0;
    let mut twice = void_result(sa);
    twice.extend(void_result(sa));
    c.handle_bytes(1, &twice);
    let ev = events(&mut c);
    assert_eq!(ev[0], Ev::Response(a, 1i32.to_be_bytes().to_vec()), "the first answer is the request's");
    let closed = format!(
        "{{\"kind\":\"protocol\",\"message\":\"remote protocol error in frame header stream at byte 2: response on stream {sa}, which has no request\",\"side\":\"remote\",\"field\":\"frame header stream\",\"offset\":2}}"
    );
    assert_eq!(ev[1..], [Ev::Closed(closed)]);
    assert_eq!(c.state(), State::Closed);
}

/// A server that drips a response one byte every 100 ms (it would take 100 s) keeps the
/// connection busy but never idle by bytes: idle counts from the last whole frame, so the
/// heartbeat still asks, finds no answer behind the dripped frame, and closes the connection.
#[test]
fn a_dripped_frame_does_not_hold_off_the_heartbeat() {
    let mut c = ready_connection(Config { request_timeout_us: 500 * MS, heartbeat_interval_us: 1_000 * MS, ..Config::default() });
    let a = query(&mut c, 2);
    let sa = transmit(&mut c)[0].0;
    let mut head = vec![0x84, 0];
    head.extend_from_slice(&sa.to_be_bytes());
    head.push(0x08);
    head.extend_from_slice(&1000u32.to_be_bytes());
    c.handle_bytes(2, &head);
    let (mut t, mut heartbeat_at) = (2, None);
    while c.state() != State::Closed && t < 60_000 * MS {
        t += 100 * MS;
        c.handle_timeout(t);
        c.handle_bytes(t, &[0]);
        if heartbeat_at.is_none() && transmit(&mut c).iter().any(|f| f.1 == 0x05) {
            heartbeat_at = Some(t);
        }
    }
    assert_eq!(heartbeat_at, Some(1_000 * MS + 2), "OPTIONS once the last whole frame (READY) is 1 s old");
    assert_eq!(t, 1_500 * MS + 2, "closed when the heartbeat's answer is 500 ms late");
    let ev = events(&mut c);
    assert_eq!(ev[0], Ev::Failed(a, "{\"kind\":\"timeout\",\"message\":\"no response within 500 ms\",\"timeout_ms\":500}".into()));
    assert_eq!(ev.last(), Some(&Ev::Closed("{\"kind\":\"heartbeat_timeout\",\"message\":\"the server did not answer a heartbeat in time\"}".into())));
}

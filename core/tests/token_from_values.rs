//! The routing token of a bound value list (`[n u16][bytes]*`), as the session computes it
//! for a prepared statement from its partition-key positions.

use cqlwire_core::cluster::{murmur3_token, routing_token};
use cqlwire_core::session::token_from_values;

/// `[n][len i32][bytes]` per value; `None` is null (-1), `Some(None)` unset (-2).
fn values(items: &[Option<Option<&[u8]>>]) -> Vec<u8> {
    let mut out = (items.len() as u16).to_be_bytes().to_vec();
    for item in items {
        match item {
            Some(Some(v)) => {
                out.extend_from_slice(&(v.len() as i32).to_be_bytes());
                out.extend_from_slice(v);
            }
            Some(None) => out.extend_from_slice(&(-2i32).to_be_bytes()),
            None => out.extend_from_slice(&(-1i32).to_be_bytes()),
        }
    }
    out
}

const KEY: &[u8] = &[0, 0, 0, 0, 0, 0, 0, 42];
const BLOB: &[u8] = &[0xab; 32];

#[test]
fn one_key_column_is_hashed_wherever_it_is() {
    let v = values(&[Some(Some(BLOB)), Some(Some(KEY)), Some(Some(b"x"))]);
    assert_eq!(token_from_values(&v, &[1]), Some(murmur3_token(KEY)));
    assert_eq!(token_from_values(&v, &[0]), Some(murmur3_token(BLOB)));
    assert_eq!(token_from_values(&v, &[2]), Some(murmur3_token(b"x")));
    assert_eq!(murmur3_token(KEY), routing_token(&[KEY]).unwrap());
    assert_ne!(murmur3_token(KEY), murmur3_token(BLOB));
}

#[test]
fn a_missing_null_or_unset_key_or_a_malformed_list_has_no_token() {
    let v = values(&[Some(Some(KEY)), Some(Some(BLOB))]);
    assert_eq!(token_from_values(&v, &[2]), None, "beyond the values");
    assert_eq!(token_from_values(&values(&[None, Some(Some(BLOB))]), &[0]), None, "null");
    assert_eq!(token_from_values(&values(&[Some(None), Some(Some(BLOB))]), &[0]), None, "unset");
    // A value list cut short after the key still has no token: the list is malformed.
    assert_eq!(token_from_values(&v[..v.len() - 1], &[0]), None);
    assert_eq!(token_from_values(&[], &[0]), None);
    assert_eq!(token_from_values(&v, &[]), None);
    // A null value that is not the key does not matter.
    assert_eq!(token_from_values(&values(&[Some(Some(KEY)), None]), &[0]), Some(murmur3_token(KEY)));
}

#[test]
fn a_composite_key_is_hashed_in_key_order() {
    let v = values(&[Some(Some(BLOB)), Some(Some(KEY)), Some(Some(b"x"))]);
    assert_eq!(token_from_values(&v, &[1, 0]), Some(routing_token(&[KEY, BLOB]).unwrap()));
    assert_eq!(token_from_values(&v, &[0, 2]), Some(routing_token(&[BLOB, b"x"]).unwrap()));
    assert_eq!(token_from_values(&v, &[0, 3]), None);
}

/// The components at `pk` gathered by a separate walk, then hashed: what the session did in
/// two passes before the check and the key were found in one.
fn two_pass_token(items: &[Option<Option<&[u8]>>], pk: &[u16]) -> Option<i64> {
    let components: Option<Vec<&[u8]>> =
        pk.iter().map(|&i| items.get(i as usize).copied().flatten().flatten()).collect();
    routing_token(&components?).ok()
}

#[test]
fn the_one_pass_token_equals_the_two_pass_token_for_composite_null_and_unset_keys() {
    let lists: [&[Option<Option<&[u8]>>]; 4] = [
        &[Some(Some(KEY)), None, Some(Some(BLOB)), Some(None), Some(Some(b"x"))],
        &[Some(Some(b"")), Some(Some(KEY)), Some(Some(BLOB))],
        &[None, Some(Some(KEY)), Some(None)],
        &[Some(None), Some(Some(BLOB)), Some(Some(KEY))],
    ];
    let keys: [&[u16]; 7] = [&[0], &[1], &[2, 0], &[0, 2, 4], &[4, 1], &[1, 2], &[0, 1, 2]];
    let mut routed = 0;
    for items in lists {
        let v = values(items);
        for pk in keys {
            let expected = two_pass_token(items, pk);
            routed += usize::from(expected.is_some());
            assert_eq!(token_from_values(&v, pk), expected, "{items:?} {pk:?}");
        }
    }
    assert_eq!(routed, 11, "some keys route, the null, unset and absent ones do not");
}

#[test]
fn a_list_the_check_refuses_has_no_token_even_when_its_key_reads_well() {
    let v = values(&[Some(Some(KEY)), Some(Some(BLOB))]);
    assert_eq!(token_from_values(&v, &[0]), Some(murmur3_token(KEY)));
    // Bytes after the last value, and an invalid length after the key: both refused by
    // `check_values`, and the walk that finds the key is that check.
    let mut trailing = v.clone();
    trailing.push(0);
    assert_eq!(token_from_values(&trailing, &[0]), None);
    let mut bad_length = 2u16.to_be_bytes().to_vec();
    bad_length.extend_from_slice(&8i32.to_be_bytes());
    bad_length.extend_from_slice(KEY);
    bad_length.extend_from_slice(&(-3i32).to_be_bytes());
    assert_eq!(token_from_values(&bad_length, &[0]), None);
}

#[test]
fn a_key_of_sixteen_columns_is_routed_and_one_of_seventeen_is_not() {
    let parts: Vec<Vec<u8>> = (0..17u8).map(|i| vec![i; 3]).collect();
    let items: Vec<Option<Option<&[u8]>>> = parts.iter().map(|p| Some(Some(p.as_slice()))).collect();
    let v = values(&items);
    let sixteen: Vec<u16> = (0..16).rev().collect();
    let components: Vec<&[u8]> = sixteen.iter().map(|&i| parts[i as usize].as_slice()).collect();
    assert_eq!(token_from_values(&v, &sixteen), Some(routing_token(&components).unwrap()));
    let seventeen: Vec<u16> = (0..17).collect();
    assert_eq!(token_from_values(&v, &seventeen), None);
    // Still the check: a malformed list is no better with a long key.
    assert_eq!(token_from_values(&v[..v.len() - 1], &seventeen), None);
}

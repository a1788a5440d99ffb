//! TrackEvent packets on the hot path: newer Android apps write their slices
//! as track events, one packet each, so a busy trace holds hundreds of
//! thousands. They are read with the wire scanner into a small record with
//! interned names, instead of a prost message with a `String` per name
//! (three times the memory, an allocation per event). What needs the
//! sequence's state (interned names and categories, default track) is
//! resolved later, in `import::packets`, in file order.

use super::wire::{lossy, Fields, PackedVarints, Value, WireError};
use crate::read::batch::BatchBuilder;
use crate::read::records::{Categories, EventName, Name, TrackEventKind, TrackEventRec};

/// TrackEvent field numbers (Perfetto's track_event.proto).
mod field {
    pub const CATEGORY_IIDS: u32 = 3;
    pub const TYPE: u32 = 9;
    pub const NAME_IID: u32 = 10;
    pub const TRACK_UUID: u32 = 11;
    pub const CATEGORIES: u32 = 22;
    pub const NAME: u32 = 23;
    pub const COUNTER_VALUE: u32 = 30;
    pub const DOUBLE_COUNTER_VALUE: u32 = 44;
}

/// The values of a repeated field in arrival order; the usual single value
/// costs no allocation (this runs once per track event).
struct Repeated<T> {
    first: Option<T>,
    rest: Vec<T>,
}

impl<T> Default for Repeated<T> {
    fn default() -> Self {
        Repeated { first: None, rest: Vec::new() }
    }
}

impl<T> Repeated<T> {
    fn push(&mut self, v: T) {
        if self.first.is_none() {
            self.first = Some(v);
        } else {
            self.rest.push(v);
        }
    }
}

/// Decode one TrackEvent. Scalars repeated in one message take the last
/// value, as protobuf does; `category_iids` may be packed or not.
pub fn decode(ctx: &mut BatchBuilder, b: &[u8]) -> Result<TrackEventRec, WireError> {
    let (mut kind, mut track_uuid, mut counter, mut double) = (TrackEventKind::Unspecified, None, None, None);
    let (mut name, mut name_iid) = (None::<Name>, None::<u64>);
    let mut categories = Repeated::<&[u8]>::default();
    let mut category_iids = Repeated::<u64>::default();
    for f in Fields::new(b) {
        let (num, v) = f?;
        match (num, v) {
            (field::TYPE, v) => kind = TrackEventKind::from_type(v.as_i32()),
            (field::TRACK_UUID, v) => track_uuid = Some(v.as_u64()),
            (field::NAME, Value::Bytes(s)) => name = Some(ctx.interner.intern_bytes(s)),
            (field::NAME_IID, v) => name_iid = Some(v.as_u64()),
            (field::CATEGORIES, Value::Bytes(s)) => categories.push(s),
            (field::CATEGORY_IIDS, Value::Bytes(packed)) => {
                let mut it = PackedVarints::new(packed);
                it.by_ref().for_each(|iid| category_iids.push(iid));
                if it.malformed {
                    return Err(WireError::BadVarint);
                }
            }
            (field::CATEGORY_IIDS, v) => category_iids.push(v.as_u64()),
            (field::COUNTER_VALUE, v) => counter = Some(v.as_i64()),
            (field::DOUBLE_COUNTER_VALUE, v) => double = Some(f64::from_bits(v.as_u64())),
            _ => {}
        }
    }
    let name = match (name, name_iid) {
        (Some(n), _) => EventName::Inline(n),
        (None, Some(iid)) => EventName::Interned(iid),
        (None, None) => EventName::None,
    };
    let categories = match (categories.first, category_iids.first) {
        (Some(only), _) if categories.rest.is_empty() => Categories::Inline(ctx.interner.intern_bytes(only)),
        (Some(first), _) => {
            let all: Vec<_> = std::iter::once(first).chain(categories.rest).map(lossy).collect();
            Categories::Inline(ctx.interner.intern(&all.join(",")))
        }
        (None, Some(only)) if category_iids.rest.is_empty() => Categories::Interned(only),
        (None, Some(first)) => Categories::InternedList(std::iter::once(first).chain(category_iids.rest).collect()),
        (None, None) => Categories::None,
    };
    Ok(TrackEventRec { kind, track_uuid, name, categories, value: double.unwrap_or(counter.unwrap_or(0) as f64) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfetto_protos::track_event::track_event::Type;
    use perfetto_protos::track_event::TrackEvent;
    use protobuf::Message;

    fn decoded(te: &TrackEvent) -> TrackEventRec {
        decode(&mut BatchBuilder::new(0), &te.write_to_bytes().expect("encodes")).expect("decodes")
    }

    #[test]
    fn a_slice_begin_with_its_own_name_and_categories() {
        let mut te = TrackEvent::new();
        te.set_type(Type::TYPE_SLICE_BEGIN);
        te.set_track_uuid(u64::MAX - 3);
        te.set_name("DrawFrames 7".into());
        te.categories = vec!["gfx".into(), "view".into()];
        te.category_iids = vec![9]; // the strings win over iids
        let r = decoded(&te);
        assert_eq!((r.kind, r.track_uuid, r.value), (TrackEventKind::SliceBegin, Some(u64::MAX - 3), 0.0));
        assert!(matches!(&r.name, EventName::Inline(n) if &**n == "DrawFrames 7"));
        assert!(matches!(&r.categories, Categories::Inline(c) if &**c == "gfx,view"));
        te.categories = vec!["gfx".into()];
        assert!(matches!(&decoded(&te).categories, Categories::Inline(c) if &**c == "gfx"));
    }

    #[test]
    fn interned_names_and_category_iids_packed_or_not() {
        let mut te = TrackEvent::new();
        te.set_type(Type::TYPE_INSTANT);
        te.set_name_iid(42);
        te.category_iids = vec![3];
        let r = decoded(&te);
        assert!(matches!(r.name, EventName::Interned(42)));
        assert!(matches!(r.categories, Categories::Interned(3)));
        assert_eq!(r.track_uuid, None);
        // Unpacked (field 3, wire type 0, twice) and packed (wire type 2).
        let unpacked = [0x18, 5, 0x18, 0x96, 0x01];
        let packed = [0x1a, 3, 5, 0x96, 0x01];
        for bytes in [&unpacked[..], &packed[..]] {
            let r = decode(&mut BatchBuilder::new(0), bytes).expect("decodes");
            assert!(matches!(&r.categories, Categories::InternedList(l) if **l == [5, 150]), "{bytes:?}");
            assert!(matches!(r.name, EventName::None));
        }
    }

    #[test]
    fn counters_prefer_the_double_value_and_the_last_scalar_wins() {
        let mut te = TrackEvent::new();
        te.set_type(Type::TYPE_COUNTER);
        te.set_counter_value(-7);
        assert_eq!(decoded(&te).value, -7.0);
        te.set_double_counter_value(2.5);
        assert_eq!(decoded(&te).value, 2.5);
        // track_uuid 1 then 2 (a merged message): protobuf keeps the last.
        let r = decode(&mut BatchBuilder::new(0), &[0x58, 1, 0x58, 2]).expect("decodes");
        assert_eq!(r.track_uuid, Some(2));
    }

    #[test]
    fn damage_is_an_error() {
        assert_eq!(decode(&mut BatchBuilder::new(0), &[0xba, 0x01, 9, b'x']).err(), Some(WireError::Truncated));
        assert_eq!(decode(&mut BatchBuilder::new(0), &[0x1a, 1, 0x80]).err(), Some(WireError::BadVarint));
    }
}

//! Tracks (trace_processor's TrackTracker): one track per (kind, name), and a
//! track of its own for each track descriptor that refused to be merged with
//! its thread's atrace track.

use rustc_hash::FxHashMap;

use crate::model::{Name, Track, TrackId, TrackKind, Utid};

#[derive(Default)]
pub(crate) struct Tracks {
    tracks: Vec<Track>,
    map: FxHashMap<(TrackKind, Option<Name>), TrackId>,
    unmerged: FxHashMap<u64, TrackId>,
}

impl Tracks {
    pub(crate) fn get(&mut self, kind: TrackKind, name: Option<Name>) -> TrackId {
        let key = (kind.clone(), name.clone());
        if let Some(&id) = self.map.get(&key) {
            return id;
        }
        let id = self.push(kind, name);
        self.map.insert(key, id);
        id
    }

    pub(crate) fn thread(&mut self, utid: Utid) -> TrackId {
        self.get(TrackKind::Thread { utid }, None)
    }

    /// A track of its own for a track descriptor that asked not to be merged
    /// with the system (atrace) track of its thread.
    pub(crate) fn unmerged(&mut self, uuid: u64, kind: TrackKind, name: Option<Name>) -> TrackId {
        if let Some(&id) = self.unmerged.get(&uuid) {
            return id;
        }
        let id = self.push(kind, name);
        self.unmerged.insert(uuid, id);
        id
    }

    fn push(&mut self, kind: TrackKind, name: Option<Name>) -> TrackId {
        let id = TrackId::next_of(self.tracks.len());
        self.tracks.push(Track { id, name, kind });
        id
    }

    pub(crate) fn finish(self) -> Vec<Track> {
        self.tracks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_track_per_kind_and_name_unless_unmerged() {
        let mut t = Tracks::default();
        let utid = Utid(3);
        let a = t.thread(utid);
        assert_eq!(t.thread(utid), a);
        let named = t.get(TrackKind::Thread { utid }, Some("x".into()));
        assert_ne!(named, a);
        let u1 = t.unmerged(42, TrackKind::Thread { utid }, None);
        assert_ne!(u1, a);
        assert_eq!(t.unmerged(42, TrackKind::Thread { utid }, None), u1);
        assert_eq!(t.finish().len(), 3);
    }
}

package lifecycle

import (
	"sync"
	"time"

	"github.com/asofrag/asof/internal/asofday"
	"github.com/asofrag/asof/schemas"
)

// Index is a Table ready to apply to shards: its entries by version, and each shard's Life once
// computed (LifeOf).
type Index struct {
	entries []Entry
	at      map[Key]int32
	mu      sync.Mutex
	lives   map[string]*Life
}

// LifeOf is Life of a shard's chunks, computed once per shard id.
func (x *Index) LifeOf(id string, chunks []schemas.Chunk) *Life {
	if x.Empty() {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if l, ok := x.lives[id]; ok {
		return l
	}
	if x.lives == nil {
		x.lives = map[string]*Life{}
	}
	l := x.Life(chunks)
	x.lives[id] = l
	return l
}

// NewIndex indexes t's entries; a nil or empty table gives an Index that applies to nothing.
func NewIndex(t *Table) *Index {
	x := &Index{at: map[Key]int32{}}
	if t == nil {
		return x
	}
	x.entries = t.Entries
	for i, e := range t.Entries {
		x.at[Key{e.DocID, max(e.Version, 1)}] = int32(i)
	}
	return x
}

// Empty reports whether x has no entry.
func (x *Index) Empty() bool { return x == nil || len(x.entries) == 0 }

// Life is an Index applied to one shard's rows: what each row's document version may be served
// as of a day. A nil *Life applies nothing (every row is served).
type Life struct {
	entries []Entry
	at      []int32 // per row: index into entries, -1 none
}

// Life applies x to a shard's chunk rows; nil when no row has an entry.
func (x *Index) Life(chunks []schemas.Chunk) *Life {
	if x.Empty() {
		return nil
	}
	var l *Life
	for i := range chunks {
		j, ok := x.at[Key{chunks[i].DocID, chunks[i].VersionOf()}]
		if !ok {
			continue
		}
		if l == nil {
			l = &Life{entries: x.entries, at: make([]int32, len(chunks))}
			for k := range l.at {
				l.at[k] = -1
			}
		}
		l.at[i] = j
	}
	return l
}

// Entry is row's entry, if it has one.
func (l *Life) Entry(row int) (Entry, bool) {
	if l == nil || row < 0 || row >= len(l.at) || l.at[row] < 0 {
		return Entry{}, false
	}
	return l.entries[l.at[row]], true
}

// Allows reports whether row may be served as current as of asOf: its version is not replaced
// by a newer one published by then, it is in force (its From day is not after asOf's) and no
// hard supersession of it has taken effect. A soft (inferred) supersession never hides a row.
func (l *Life) Allows(row int, asOf time.Time) bool {
	e, ok := l.Entry(row)
	if !ok {
		return true
	}
	d := asofday.Start(asOf)
	return l.AllowsHistory(row, asOf) && (e.Soft() || e.Until.IsZero() || d.Before(e.Until))
}

// AllowsHistory is Allows for a search of what was in force before (evolution): a superseded
// text is history, but a replaced version or a text not yet in force is not.
func (l *Life) AllowsHistory(row int, asOf time.Time) bool {
	e, ok := l.Entry(row)
	if !ok {
		return true
	}
	d := asofday.Start(asOf)
	return (e.From.IsZero() || !d.Before(e.From)) && (e.Replaced.IsZero() || d.Before(e.Replaced))
}

// Ended is row's entry when a supersession of it has taken effect by asOf (for labels:
// "superseded by X on D"), soft ones included.
func (l *Life) Ended(row int, asOf time.Time) (Entry, bool) {
	e, ok := l.Entry(row)
	if !ok || e.Until.IsZero() || asofday.Start(asOf).Before(e.Until) {
		return Entry{}, false
	}
	return e, true
}

// NotYet reports whether row is a standing text published but not yet in force as of asOf.
func (l *Life) NotYet(row int, asOf time.Time) bool {
	e, ok := l.Entry(row)
	return ok && !e.From.IsZero() && asofday.Start(asOf).Before(e.From)
}

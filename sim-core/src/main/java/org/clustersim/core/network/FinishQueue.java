package org.clustersim.core.network;

import java.util.Arrays;

/**
 * The flows in flight with a finite finish time, grouped by that time: a binary heap of distinct
 * finish times, each holding the flows due then (a bucket), ordered by id when taken.
 *
 * <p>Flows that max-min fairness treats alike finish at the same nanosecond: every inter-node
 * flow of an all-to-all is limited by its NIC's equal share, so thousands finish together. A
 * heap of flows paid a sift of its full depth for each of them (a quarter of a 2,048-GPU direct
 * all-to-all run, with 100 K flows in flight); here moving a flow between finish times and
 * taking the flows due are constant time per flow, and the heap holds only distinct times.
 * The order is the heap's - finish time, then flow id - so simulations do not change.
 *
 * @param <E> the flows
 */
final class FinishQueue<E extends FinishQueue.Entry> {
    /** What the queue keeps per flow: its finish time and id, and where it sits. */
    abstract static class Entry {
        /** Orders simultaneous finishes; unique among the entries of one queue. */
        final long id;
        /** When it finishes, ns; {@link Long#MAX_VALUE} for never (not queued). */
        long finishAt = Long.MAX_VALUE;
        Bucket bucket;
        int slot;

        Entry(long id) {
            this.id = id;
        }
    }

    /** The entries due at one time; recycled once empty. */
    private static final class Bucket {
        long time;
        Entry[] entries = new Entry[4];
        int count;
        /** Whether the entries are in id order (appends keep it while ids grow). */
        boolean sorted = true;
        int heapIndex = -1;
    }

    private Bucket[] heap = new Bucket[16];
    private int size;
    /** Buckets by time: open addressing, linear probing, power-of-two capacity. */
    private Bucket[] table = new Bucket[64];
    private int tableCount;
    private Bucket[] spare = new Bucket[16];
    private int spareCount;
    /** The entries {@link #takeFirst()} took last. */
    private Entry[] due = new Entry[64];
    /** Scratch for {@link #sortById}'s merges. */
    private Entry[] merging = new Entry[0];
    private int dueCount;
    /** The bucket the last entry went to (null once recycled): entries re-rated together mostly share a finish. */
    private Bucket last;

    /** The earliest finish time queued, or {@link Long#MAX_VALUE} when none. */
    long firstTime() {
        return size == 0 ? Long.MAX_VALUE : heap[0].time;
    }

    /** Queues {@code e} at its (new) {@link Entry#finishAt}; an entry that will not finish leaves. */
    void update(E e) {
        Bucket b = e.bucket;
        if (b != null) {
            if (b.time == e.finishAt) {
                return;
            }
            detach(e, b);
        }
        if (e.finishAt == Long.MAX_VALUE) {
            return;
        }
        Bucket to = last != null && last.time == e.finishAt ? last : bucketAt(e.finishAt);
        last = to;
        if (to.count == to.entries.length) {
            to.entries = Arrays.copyOf(to.entries, to.count * 2);
        }
        if (to.count > 0 && to.entries[to.count - 1].id > e.id) {
            to.sorted = false;
        }
        e.bucket = to;
        e.slot = to.count;
        to.entries[to.count++] = e;
    }

    /**
     * Takes the entries due at the earliest time out of the queue, in id order, and returns how
     * many; read them with {@link #due(int)} until the next call. Call only when
     * {@link #firstTime()} is finite.
     */
    int takeFirst() {
        Bucket b = heap[0];
        removeFromHeap(b);
        removeFromTable(b);
        int n = b.count;
        if (!b.sorted) {
            sortById(b.entries, n);
        }
        if (due.length < n) {
            due = new Entry[Math.max(n, due.length * 2)];
        }
        for (int i = 0; i < n; i++) {
            Entry e = b.entries[i];
            e.bucket = null;
            due[i] = e;
            b.entries[i] = null;
        }
        if (dueCount > n) {
            Arrays.fill(due, n, dueCount, null);
        }
        dueCount = n;
        recycle(b);
        return n;
    }

    /**
     * Puts the first {@code n} entries of {@code a} in id order: insertion sort on short runs, then
     * merges through {@link #merging}. The queue's own sort rather than {@code Arrays.sort} with a
     * comparator: the JDK's shared TimSort, compiled for the element arrays of whichever sort ran
     * it hot, kept deoptimising and recompiling ({@code array_check} traps) as the arrays of other
     * callers reached it, run after run in one JVM. Ids are unique, so the order is the same.
     */
    private void sortById(Entry[] a, int n) {
        final int run = 32;
        for (int lo = 0; lo < n; lo += run) {
            int hi = Math.min(lo + run, n);
            for (int i = lo + 1; i < hi; i++) {
                Entry e = a[i];
                int j = i - 1;
                while (j >= lo && a[j].id > e.id) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = e;
            }
        }
        if (n <= run) {
            return;
        }
        if (merging.length < n) {
            merging = new Entry[Math.max(n, merging.length * 2)];
        }
        Entry[] from = a;
        Entry[] to = merging;
        for (int width = run; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + 2 * width, n);
                int i = lo;
                int j = mid;
                for (int k = lo; k < hi; k++) {
                    to[k] = j >= hi || i < mid && from[i].id < from[j].id ? from[i++] : from[j++];
                }
            }
            Entry[] t = from;
            from = to;
            to = t;
        }
        if (from != a) {
            System.arraycopy(from, 0, a, 0, n);
        }
        Arrays.fill(merging, 0, n, null);
    }

    /** The i-th entry the last {@link #takeFirst()} took. */
    @SuppressWarnings("unchecked")
    E due(int i) {
        return (E) due[i];
    }

    private void detach(Entry e, Bucket b) {
        int lastSlot = --b.count;
        Entry moved = b.entries[lastSlot];
        b.entries[lastSlot] = null;
        if (moved != e) {
            b.entries[e.slot] = moved;
            moved.slot = e.slot;
            b.sorted = false;
        }
        e.bucket = null;
        if (b.count == 0) {
            removeFromHeap(b);
            removeFromTable(b);
            recycle(b);
        }
    }

    private Bucket bucketAt(long time) {
        int mask = table.length - 1;
        int i = mix(time) & mask;
        for (Bucket b = table[i]; b != null; b = table[i]) {
            if (b.time == time) {
                return b;
            }
            i = (i + 1) & mask;
        }
        Bucket b = spareCount > 0 ? spare[--spareCount] : new Bucket();
        b.time = time;
        b.sorted = true;
        table[i] = b;
        if (++tableCount * 2 > table.length) {
            rehash(table.length * 2);
        }
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        siftUp(size++, b);
        return b;
    }

    private static int mix(long time) {
        long h = time * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    private void rehash(int capacity) {
        Bucket[] old = table;
        table = new Bucket[capacity];
        int mask = capacity - 1;
        for (Bucket b : old) {
            if (b != null) {
                int i = mix(b.time) & mask;
                while (table[i] != null) {
                    i = (i + 1) & mask;
                }
                table[i] = b;
            }
        }
    }

    /** Deletes from the probe table, moving later entries of the run back (no tombstones). */
    private void removeFromTable(Bucket b) {
        int mask = table.length - 1;
        int i = mix(b.time) & mask;
        while (table[i] != b) {
            i = (i + 1) & mask;
        }
        table[i] = null;
        tableCount--;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            Bucket c = table[j];
            if (c == null) {
                return;
            }
            int home = mix(c.time) & mask;
            // c may fill the hole at i unless its home lies cyclically in (i, j]
            boolean stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
            if (!stays) {
                table[i] = c;
                table[j] = null;
                i = j;
            }
        }
    }

    private void recycle(Bucket b) {
        b.count = 0;
        b.heapIndex = -1;
        if (last == b) {
            last = null;
        }
        if (spareCount == spare.length) {
            spare = Arrays.copyOf(spare, spareCount * 2);
        }
        spare[spareCount++] = b;
    }

    private void removeFromHeap(Bucket b) {
        int h = b.heapIndex;
        Bucket end = heap[--size];
        heap[size] = null;
        b.heapIndex = -1;
        if (h < size) {
            if (h > 0 && end.time < heap[(h - 1) >>> 1].time) {
                siftUp(h, end);
            } else {
                siftDown(h, end);
            }
        }
    }

    private void siftUp(int h, Bucket x) {
        while (h > 0) {
            int parent = (h - 1) >>> 1;
            Bucket p = heap[parent];
            if (p.time <= x.time) {
                break;
            }
            heap[h] = p;
            p.heapIndex = h;
            h = parent;
        }
        heap[h] = x;
        x.heapIndex = h;
    }

    private void siftDown(int h, Bucket x) {
        int half = size >>> 1;
        while (h < half) {
            int child = 2 * h + 1;
            int right = child + 1;
            if (right < size && heap[right].time < heap[child].time) {
                child = right;
            }
            if (heap[child].time >= x.time) {
                break;
            }
            heap[h] = heap[child];
            heap[h].heapIndex = h;
            h = child;
        }
        heap[h] = x;
        x.heapIndex = h;
    }
}

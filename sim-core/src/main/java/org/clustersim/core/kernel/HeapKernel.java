package org.clustersim.core.kernel;

import java.util.Arrays;

/**
 * {@link SimKernel} on a four-ary heap held in primitive arrays: per pending event its time and
 * its sequence number side by side in one {@code long[]} (the sequence is the order it was
 * scheduled in, which breaks ties so that actions at the same instant run first-scheduled first),
 * and its action in another. Nothing is allocated per event beyond the caller's action, and
 * ordering compares two {@code long}s. Four children's keys fill one 64-byte cache line, so
 * taking the first event reads one line per level, over half the levels of a binary heap: with
 * every replica of a 16,384-GPU step simulated, tens of thousands of events are pending and each
 * level below the top few misses the cache.
 *
 * <p>It orders events exactly as {@link DsolKernel} does (time, then DSOL's event id, which
 * counts events in the order they are created, just before they are scheduled), so a run gives
 * the same result on either; this one is what {@code Simulation} uses. DSOL's per-event costs
 * (an event object with a boxed time, a global atomic id, a logger lookup per scheduled event,
 * comparisons through {@code Comparable} on boxed times) made up most of the kernel's share of a
 * 16,384-GPU step with every replica simulated (docs/benchmarks.md, "Scale").
 */
public final class HeapKernel implements SimKernel {
    /** Event i's time at {@code 2 i} and its sequence number at {@code 2 i + 1}. */
    private long[] keys = new long[512];
    private Runnable[] actions = new Runnable[256];
    private int size;
    private long nextSeq;
    private long now;
    private long executed;
    private boolean ran;

    @Override
    public long now() {
        return now;
    }

    @Override
    public void schedule(long atNs, Runnable action) {
        if (atNs < now) {
            throw new IllegalArgumentException("cannot schedule at " + atNs + " ns, before now (" + now + " ns)");
        }
        if (size == actions.length) {
            keys = Arrays.copyOf(keys, size * 4);
            actions = Arrays.copyOf(actions, size * 2);
        }
        long seq = nextSeq++;
        int i = size++;
        long[] k = keys;
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            long pt = k[2 * parent];
            if (pt < atNs || (pt == atNs && k[2 * parent + 1] < seq)) {
                break;
            }
            k[2 * i] = pt;
            k[2 * i + 1] = k[2 * parent + 1];
            actions[i] = actions[parent];
            i = parent;
        }
        k[2 * i] = atNs;
        k[2 * i + 1] = seq;
        actions[i] = action;
    }

    @Override
    public long run() {
        if (ran) {
            throw new IllegalStateException("a HeapKernel runs once");
        }
        ran = true;
        while (size > 0) {
            now = keys[0];
            Runnable action = actions[0];
            removeFirst();
            executed++;
            try {
                action.run();
            } catch (SimulationException e) {
                throw e;
            } catch (RuntimeException | Error e) {
                throw new SimulationException(now, null, e);
            }
        }
        return executed;
    }

    /** Events executed so far. */
    public long eventsExecuted() {
        return executed;
    }

    /** Events scheduled and not yet executed. */
    public int pending() {
        return size;
    }

    private void removeFirst() {
        int last = --size;
        long[] k = keys;
        long t = k[2 * last];
        long s = k[2 * last + 1];
        Runnable a = actions[last];
        actions[last] = null;
        if (last == 0) {
            return;
        }
        int i = 0;
        while (true) {
            int first = 4 * i + 1;
            if (first >= last) {
                break;
            }
            int child = first;
            long ct = k[2 * first];
            long cs = k[2 * first + 1];
            for (int c = first + 1, end = Math.min(first + 4, last); c < end; c++) {
                long time = k[2 * c];
                if (time < ct || (time == ct && k[2 * c + 1] < cs)) {
                    child = c;
                    ct = time;
                    cs = k[2 * c + 1];
                }
            }
            if (t < ct || (t == ct && s < cs)) {
                break;
            }
            k[2 * i] = ct;
            k[2 * i + 1] = cs;
            actions[i] = actions[child];
            i = child;
        }
        k[2 * i] = t;
        k[2 * i + 1] = s;
        actions[i] = a;
    }
}

package org.clustersim.core.kernel;

import java.util.Arrays;

/**
 * {@link SimKernel} on a binary heap held in parallel primitive arrays: per pending event its
 * time, its sequence number (the order it was scheduled in, which breaks ties so that actions at
 * the same instant run first-scheduled first) and its action. Nothing is allocated per event
 * beyond the caller's action, and ordering compares two {@code long}s.
 *
 * <p>It orders events exactly as {@link DsolKernel} does (time, then DSOL's event id, which
 * counts events in the order they are created, just before they are scheduled), so a run gives
 * the same result on either; this one is what {@code Simulation} uses. DSOL's per-event costs
 * (an event object with a boxed time, a global atomic id, a logger lookup per scheduled event,
 * comparisons through {@code Comparable} on boxed times) made up most of the kernel's share of a
 * 16,384-GPU step with every replica simulated (docs/benchmarks.md, "Scale").
 */
public final class HeapKernel implements SimKernel {
    private long[] times = new long[256];
    private long[] seqs = new long[256];
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
        if (size == times.length) {
            int cap = size * 2;
            times = Arrays.copyOf(times, cap);
            seqs = Arrays.copyOf(seqs, cap);
            actions = Arrays.copyOf(actions, cap);
        }
        long seq = nextSeq++;
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            long pt = times[parent];
            if (pt < atNs || (pt == atNs && seqs[parent] < seq)) {
                break;
            }
            times[i] = pt;
            seqs[i] = seqs[parent];
            actions[i] = actions[parent];
            i = parent;
        }
        times[i] = atNs;
        seqs[i] = seq;
        actions[i] = action;
    }

    @Override
    public long run() {
        if (ran) {
            throw new IllegalStateException("a HeapKernel runs once");
        }
        ran = true;
        while (size > 0) {
            now = times[0];
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
        long t = times[last];
        long s = seqs[last];
        Runnable a = actions[last];
        actions[last] = null;
        if (last == 0) {
            return;
        }
        int i = 0;
        int half = last >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < last && (times[right] < times[child]
                    || (times[right] == times[child] && seqs[right] < seqs[child]))) {
                child = right;
            }
            long ct = times[child];
            if (t < ct || (t == ct && s < seqs[child])) {
                break;
            }
            times[i] = ct;
            seqs[i] = seqs[child];
            actions[i] = actions[child];
            i = child;
        }
        times[i] = t;
        seqs[i] = s;
        actions[i] = a;
    }
}

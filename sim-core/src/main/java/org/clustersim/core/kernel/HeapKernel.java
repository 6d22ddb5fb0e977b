package org.clustersim.core.kernel;

import java.util.Arrays;

/**
 * {@link SimKernel} that keeps pending events grouped by instant: a four-ary heap of the distinct
 * instants, and per instant a first-in first-out queue of its actions. An action scheduled for an
 * instant that already has a queue joins its tail, which costs no heap operation; the heap moves
 * once per instant, when the instant's queue is created and when it has been drained.
 *
 * <p>Why: with every replica of a 16,384-GPU step simulated, the replicas run in lockstep, and
 * 99% of events fall on the instant of the event before them (3.63 M of 3.67 M); a heap of
 * events paid a sift through some 1,300 pending events for each; at most 20 instants are
 * pending at once (10 on average), the same 41,956 instants as with one replica simulated.
 *
 * <p>Order: instants ascending, and within an instant the order actions were scheduled in; that
 * is time, then sequence number, which is how {@link DsolKernel} orders events (time, then DSOL's
 * event id, counted in the order events are created), so a run gives the same result on either.
 * {@code Simulation} runs on DSOL unless asked for this one ({@code simulation.kernel: heap}).
 * Storage is primitive arrays and pooled nodes: nothing is allocated per event beyond the
 * caller's action. DSOL's per-event costs (an event object with a boxed time, a global atomic
 * id, a logger lookup per scheduled event, comparisons through {@code Comparable} on boxed
 * times) were what this kernel saved on the largest runs (docs/benchmarks.md, "Kernel");
 * {@link DsolKernel} now groups actions by instant as well and costs about the same
 * ("Event loop: per-event cost").
 */
public final class HeapKernel implements SimKernel {
    /** Heap of pending instants: the time and its queue (below) at the same index. */
    private long[] heapTime = new long[64];
    private int[] heapQueue = new int[64];
    private int instants;

    /** Per queue: its first and last node, -1 when empty. */
    private int[] queueHead = new int[64];
    private int[] queueTail = new int[64];
    private int[] freeQueues = new int[64];
    private int freeQueueCount;
    private int queuesMade;

    /** Nodes: an action and the next node of its queue; unused nodes chained through {@link #nodeNext}. */
    private Runnable[] nodeAction = new Runnable[256];
    private int[] nodeNext = new int[256];
    private int freeNode = -1;
    private int nodesMade;

    /** The instants that have a queue, by time: open addressing, linear probing, no tombstones. */
    private long[] slotTime = new long[128];
    private int[] slotQueue = filled(128);

    private int pending;
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
        int node = takeNode();
        nodeAction[node] = action;
        nodeNext[node] = -1;
        int q = queueAt(atNs);
        if (queueTail[q] < 0) {
            queueHead[q] = node;
        } else {
            nodeNext[queueTail[q]] = node;
        }
        queueTail[q] = node;
        pending++;
    }

    @Override
    public long run() {
        if (ran) {
            throw new IllegalStateException("a HeapKernel runs once");
        }
        ran = true;
        while (instants > 0) {
            int q = heapQueue[0];
            now = heapTime[0];
            // actions scheduled for now while the queue drains join its tail and run in this loop
            for (int node = queueHead[q]; node >= 0; node = queueHead[q]) {
                Runnable action = nodeAction[node];
                queueHead[q] = nodeNext[node];
                if (queueHead[q] < 0) {
                    queueTail[q] = -1;
                }
                nodeAction[node] = null;
                nodeNext[node] = freeNode;
                freeNode = node;
                pending--;
                executed++;
                try {
                    action.run();
                } catch (SimulationException e) {
                    throw e;
                } catch (RuntimeException | Error e) {
                    throw new SimulationException(now, null, e);
                }
            }
            removeFirstInstant();
            forget(now);
            freeQueues[freeQueueCount++] = q;
        }
        return executed;
    }

    /** Events executed so far. */
    public long eventsExecuted() {
        return executed;
    }

    /** Events scheduled and not yet executed. */
    public int pending() {
        return pending;
    }

    private int takeNode() {
        if (freeNode >= 0) {
            int node = freeNode;
            freeNode = nodeNext[node];
            return node;
        }
        if (nodesMade == nodeAction.length) {
            nodeAction = Arrays.copyOf(nodeAction, nodesMade * 2);
            nodeNext = Arrays.copyOf(nodeNext, nodesMade * 2);
        }
        return nodesMade++;
    }

    /** The queue of instant {@code t}, made (and the instant put on the heap) if it has none. */
    private int queueAt(long t) {
        int mask = slotTime.length - 1;
        int i = TimeSlots.of(t, mask);
        while (slotQueue[i] >= 0) {
            if (slotTime[i] == t) {
                return slotQueue[i];
            }
            i = (i + 1) & mask;
        }
        int q = newQueue();
        slotTime[i] = t;
        slotQueue[i] = q;
        if (2 * (instants + 1) > slotTime.length) {
            rehash(slotTime.length * 2);
        }
        pushInstant(t, q);
        return q;
    }

    private int newQueue() {
        int q;
        if (freeQueueCount > 0) {
            q = freeQueues[--freeQueueCount];
        } else {
            if (queuesMade == queueHead.length) {
                int n = queuesMade * 2;
                queueHead = Arrays.copyOf(queueHead, n);
                queueTail = Arrays.copyOf(queueTail, n);
                freeQueues = Arrays.copyOf(freeQueues, n);
            }
            q = queuesMade++;
        }
        queueHead[q] = -1;
        queueTail[q] = -1;
        return q;
    }

    /** Drops instant {@code t} from the table, shifting later entries of its probe run back. */
    private void forget(long t) {
        int mask = slotTime.length - 1;
        int i = TimeSlots.of(t, mask);
        while (slotTime[i] != t || slotQueue[i] < 0) {
            i = (i + 1) & mask;
        }
        int hole = i;
        for (int j = (hole + 1) & mask; slotQueue[j] >= 0; j = (j + 1) & mask) {
            int home = TimeSlots.of(slotTime[j], mask);
            // an entry may fill the hole unless its home lies cyclically after the hole, up to it
            boolean stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
            if (!stays) {
                slotTime[hole] = slotTime[j];
                slotQueue[hole] = slotQueue[j];
                hole = j;
            }
        }
        slotQueue[hole] = -1;
    }

    private void rehash(int capacity) {
        long[] oldTime = slotTime;
        int[] oldQueue = slotQueue;
        slotTime = new long[capacity];
        slotQueue = filled(capacity);
        int mask = capacity - 1;
        for (int j = 0; j < oldTime.length; j++) {
            if (oldQueue[j] >= 0) {
                int i = TimeSlots.of(oldTime[j], mask);
                while (slotQueue[i] >= 0) {
                    i = (i + 1) & mask;
                }
                slotTime[i] = oldTime[j];
                slotQueue[i] = oldQueue[j];
            }
        }
    }

    private static int[] filled(int n) {
        int[] a = new int[n];
        Arrays.fill(a, -1);
        return a;
    }

    private void pushInstant(long t, int q) {
        if (instants == heapTime.length) {
            heapTime = Arrays.copyOf(heapTime, instants * 2);
            heapQueue = Arrays.copyOf(heapQueue, instants * 2);
        }
        int i = instants++;
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            if (heapTime[parent] < t) {
                break;
            }
            heapTime[i] = heapTime[parent];
            heapQueue[i] = heapQueue[parent];
            i = parent;
        }
        heapTime[i] = t;
        heapQueue[i] = q;
    }

    private void removeFirstInstant() {
        int last = --instants;
        long t = heapTime[last];
        int q = heapQueue[last];
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
            long ct = heapTime[first];
            for (int c = first + 1, end = Math.min(first + 4, last); c < end; c++) {
                if (heapTime[c] < ct) {
                    child = c;
                    ct = heapTime[c];
                }
            }
            if (t < ct) {
                break;
            }
            heapTime[i] = ct;
            heapQueue[i] = heapQueue[child];
            i = child;
        }
        heapTime[i] = t;
        heapQueue[i] = q;
    }
}

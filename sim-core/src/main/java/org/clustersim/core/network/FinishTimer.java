package org.clustersim.core.network;

import org.clustersim.core.kernel.SimKernel;

/**
 * The flows' finish times ({@link FinishQueue}, flows grouped by finish time) behind one kernel
 * timer event for the earliest of them, so that the number of kernel events grows with flows
 * and rate changes, never with bytes. A timer made stale by an earlier finish is ignored when it
 * fires. When one fires, the owner is told once and takes the flows due.
 */
final class FinishTimer {
    /** Told when the earliest finish time has come. */
    interface Due {
        void finishDue(long now);
    }

    private final SimKernel kernel;
    private final FinishQueue<ActiveFlow> queue = new FinishQueue<>();
    private final Due due;
    private long timerAt = Long.MAX_VALUE;

    FinishTimer(SimKernel kernel, Due due) {
        this.kernel = kernel;
        this.due = due;
    }

    /** Queues a flow at its (new) {@link ActiveFlow#finishAt}; one that will not finish leaves. */
    void update(ActiveFlow a) {
        queue.update(a);
    }

    /** The earliest finish time queued, or {@link Long#MAX_VALUE} when none. */
    long firstTime() {
        return queue.firstTime();
    }

    /** Takes the flows of the earliest finish time; {@link #due(int)} lists them. */
    int takeFirst() {
        return queue.takeFirst();
    }

    /** The {@code i}th flow {@link #takeFirst()} took, in id order. */
    ActiveFlow due(int i) {
        return queue.due(i);
    }

    /** Schedules the timer for the earliest finish, unless one is set for that time or earlier. */
    void arm() {
        long first = queue.firstTime();
        if (first < timerAt) {
            timerAt = first;
            long at = timerAt;
            kernel.schedule(at, () -> fire(at));
        }
    }

    private void fire(long at) {
        if (at != timerAt) {
            return;
        }
        timerAt = Long.MAX_VALUE;
        due.finishDue(kernel.now());
    }
}

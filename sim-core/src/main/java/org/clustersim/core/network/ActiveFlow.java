package org.clustersim.core.network;

import org.clustersim.core.engine.Flow;

/**
 * A flow with bytes left to drain, or a flow class standing for several flows of one phase
 * ({@link #members}): its links, its slot on each, its rate and the bytes it has left as of
 * {@link #updatedAt}. The flow model's parts read and write its fields directly: it is the
 * record of the hot loops, one per flow started.
 */
final class ActiveFlow extends FinishQueue.Entry {
    final Flow spec;
    final String owner;
    final PhaseRun phase;
    /** Link ids of the route, shared with the route: never written. */
    int[] links;
    /** Per hop, this flow's slot in its link's flow array. */
    int[] slot;
    long latency;
    double remaining;
    double rate;
    long updatedAt;
    /** The re-rating pass that last reached this flow (replaces a visited set). */
    long seenIn = -1;
    boolean done;
    /**
     * Non-null for a class standing for several flows of one phase ({@link FlowClass}): then
     * {@link #links} holds the links its members cross, each once ({@link FlowClass#links}), and
     * the class's id is its first member's.
     */
    FlowClass members;
    /** For a class, the id of its phase's first flow (a member's id adds its index). */
    long memberBase;
    /** For a class, per link of {@link FlowClass#links} it crosses without binding, its slot there. */
    int[] sharedSlot;
    /**
     * For a class whose binding links' rate is kept off {@link LinkRates} while it runs, since
     * when it runs (each binding link's busy time starts then); -1 when its whole rate is on the
     * links' totals.
     */
    long bindingSince = -1;

    ActiveFlow(long id, Flow spec, String owner, PhaseRun phase, double bytes, long now) {
        super(id);
        this.spec = spec;
        this.owner = owner;
        this.phase = phase;
        this.remaining = bytes;
        this.updatedAt = now;
    }

    /** Takes off the bytes drained at the current rate since the last update. */
    void settle(long now) {
        remaining = Math.max(0, remaining - rate * (now - updatedAt));
        updatedAt = now;
    }
}

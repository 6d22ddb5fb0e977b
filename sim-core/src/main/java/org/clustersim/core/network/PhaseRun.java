package org.clustersim.core.network;

import org.clustersim.core.kernel.SimKernel;

/** One phase in progress: it completes when its last flow has arrived, plus its extra latency. */
final class PhaseRun {
    private final SimKernel kernel;
    private final Runnable onDone;
    private final long extraLatency;
    private int pending;
    private long lastArrival;

    PhaseRun(SimKernel kernel, int flows, Runnable onDone, long extraLatency, long now) {
        this.kernel = kernel;
        this.pending = flows;
        this.onDone = onDone;
        this.extraLatency = extraLatency;
        this.lastArrival = now;
    }

    void arrived(long at) {
        arrived(at, 1);
    }

    /** Several flows, the last of them arriving at {@code at}. */
    void arrived(long at, int flows) {
        lastArrival = Math.max(lastArrival, at);
        pending -= flows;
        if (pending == 0) {
            kernel.schedule(lastArrival + extraLatency, onDone);
        }
    }
}

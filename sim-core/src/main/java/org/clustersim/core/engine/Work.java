package org.clustersim.core.engine;

import java.util.List;

/** What a task does once it starts: occupy compute units for a while, or move bytes. */
public sealed interface Work permits Work.Compute, Work.Communication {

    /**
     * Compute work whose duration a cost model has already decided.
     *
     * @param durationNs time on the compute stream
     * @param flops      floating-point operations performed, summed over the devices the task
     *                   occupies (for metrics), 0 if not counted
     * @param ops        how the duration splits over ops, or {@code null} when the task is one op
     */
    record Compute(long durationNs, double flops, OpBreakdown ops) implements Work {
        public Compute {
            if (durationNs < 0) {
                throw new IllegalArgumentException("duration must not be negative: " + durationNs);
            }
        }

        /** A task that is one op. */
        public Compute(long durationNs, double flops) {
            this(durationNs, flops, null);
        }
    }

    /**
     * Communication: phases run one after another, each phase's flows concurrently.
     *
     * @param phases the phases in order, at least one
     * @param calls  what it runs in a collective library's terms, where the step builder said
     *               ({@link CommCall}); empty when not known. Only exporters read it: the simulation,
     *               {@link #equals} and {@link #hashCode} look at the phases alone
     */
    record Communication(List<Phase> phases, List<CommCall> calls) implements Work {
        public Communication {
            phases = List.copyOf(phases);
            calls = calls == null ? List.of() : List.copyOf(calls);
            if (phases.isEmpty()) {
                throw new IllegalArgumentException("communication needs at least one phase");
            }
        }

        /** Communication of these phases, not described as calls. */
        public Communication(List<Phase> phases) {
            this(phases, List.of());
        }

        /** The same phases described as {@code calls} (replacing any description they had). */
        public Communication as(CommCall... calls) {
            return new Communication(phases, List.of(calls));
        }

        /** The same phases, each flow described as one point-to-point send (ring steps of custom exchanges). */
        public Communication asSends() {
            List<CommCall> sends = new java.util.ArrayList<>();
            for (Phase p : phases) {
                for (Flow f : p.flows()) {
                    sends.add(CommCall.send(f.srcDevice(), f.dstDevice(), f.bytes()));
                }
            }
            return new Communication(phases, sends);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Communication c && c.phases.equals(phases);
        }

        @Override
        public int hashCode() {
            return phases.hashCode();
        }

        /**
         * The same communication between other devices: every flow's ends mapped through
         * {@code device}, phases, sizes, channels and latencies kept. What a symmetric replica of
         * a step's pipeline runs, where its plans are those of the first replica moved.
         *
         * @throws IllegalArgumentException if {@code device} maps an end of some flow to a negative id
         */
        public Communication onDevices(java.util.function.IntUnaryOperator device) {
            List<Phase> moved = new java.util.ArrayList<>(phases.size());
            for (Phase p : phases) {
                List<Flow> flows = new java.util.ArrayList<>(p.flows().size());
                for (Flow f : p.flows()) {
                    int src = device.applyAsInt(f.srcDevice());
                    int dst = device.applyAsInt(f.dstDevice());
                    if (src < 0 || dst < 0) {
                        throw new IllegalArgumentException("no device for flow " + f.srcDevice() + " -> " + f.dstDevice());
                    }
                    flows.add(new Flow(src, dst, f.bytes(), f.channel()));
                }
                moved.add(new Phase(flows, p.extraLatencyNs()));
            }
            List<CommCall> movedCalls = new java.util.ArrayList<>(calls.size());
            for (CommCall c : calls) {
                movedCalls.add(c.onDevices(device));
            }
            return new Communication(moved, movedCalls);
        }

        /** A single point-to-point transfer. */
        public static Communication pointToPoint(int src, int dst, long bytes) {
            return new Communication(List.of(new Phase(List.of(new Flow(src, dst, bytes)))),
                    List.of(CommCall.send(src, dst, bytes)));
        }

        /**
         * Several communications running side by side as one: phase i of the result holds the
         * flows of phase i of each part (parts with fewer phases simply stop) and waits for the
         * longest of their latencies. For the same collective over disjoint groups at once.
         */
        public static Communication concurrent(List<Communication> parts) {
            if (parts.size() == 1) {
                return parts.get(0);
            }
            int phases = 0;
            for (Communication w : parts) {
                phases = Math.max(phases, w.phases().size());
            }
            List<Phase> merged = new java.util.ArrayList<>(phases);
            List<CommCall> calls = new java.util.ArrayList<>();
            for (Communication w : parts) {
                calls.addAll(w.calls());
            }
            for (int i = 0; i < phases; i++) {
                List<Flow> flows = new java.util.ArrayList<>();
                long extra = 0;
                for (Communication w : parts) {
                    if (i < w.phases().size()) {
                        Phase ph = w.phases().get(i);
                        flows.addAll(ph.flows());
                        extra = Math.max(extra, ph.extraLatencyNs());
                    }
                }
                merged.add(new Phase(flows, extra));
            }
            return new Communication(merged, calls);
        }

        /** Total bytes over all phases. */
        public long bytes() {
            long sum = 0;
            for (Phase p : phases) {
                sum += p.bytes();
            }
            return sum;
        }
    }
}

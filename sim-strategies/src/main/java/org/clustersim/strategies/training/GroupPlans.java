package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.CommCall;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.strategies.collective.DirectAlgorithm;
import org.clustersim.strategies.collective.NodeLimitedAllToAll;
import org.clustersim.strategies.collective.Protocol;
import org.clustersim.strategies.collective.PxnAlgorithm;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.topology.Topology;

/**
 * The plans of a training step's in-pipeline collectives, made once per group: the same
 * collective over the same GPUs recurs every layer and microbatch. The algorithm is chosen
 * (auto) once per kind, operation, size and group size. MoE exchanges (all-to-all) go as the
 * step's {@link AllToAllAlgorithm} says; under {@code auto}, across servers rail-aligned (PXN),
 * or node-limited when the model limits each token's servers, and inside a server by the
 * cheapest estimate.
 */
final class GroupPlans {
    private static final PxnAlgorithm PXN = new PxnAlgorithm();
    private static final DirectAlgorithm DIRECT = new DirectAlgorithm();
    private final Topology topology;
    /** The model's experts, for the node limit of MoE exchanges (null for a dense model). */
    private final TransformerModel.Experts experts;
    private final AllToAllAlgorithm allToAll;
    /** Whether each group chooses its own algorithm, rather than the first of its kind, operation, size and group size. */
    private final boolean eachGroup;
    /** The algorithm chosen per kind of group, operation, size and group size. */
    private final Map<ChoiceKey, Collectives.Choice> chosen = new HashMap<>();
    /** The plan made per kind of group, operation, size and the group's GPUs. */
    private final Map<PlanKey, Work.Communication> planned = new HashMap<>();
    /** Every plan made, with what it was made for, in the order made. */
    private final List<Made> made = new ArrayList<>();

    private record Made(String kind, CollectiveOp op, int[] devices, long bytes, Work.Communication work) {
    }

    private record ChoiceKey(String kind, CollectiveOp op, long bytes, int groupSize) {
    }

    /** A plan's key: the GPUs compared by value, not by array identity. */
    private record PlanKey(String kind, CollectiveOp op, long bytes, int[] devices) {
        @Override
        public boolean equals(Object o) {
            return o instanceof PlanKey k && k.bytes == bytes && k.op == op && k.kind.equals(kind)
                    && java.util.Arrays.equals(k.devices, devices);
        }

        @Override
        public int hashCode() {
            return (kind.hashCode() * 31 + op.hashCode()) * 31 + Long.hashCode(bytes) * 31
                    + java.util.Arrays.hashCode(devices);
        }
    }

    GroupPlans(Topology topology, TransformerModel.Experts experts) {
        this(topology, experts, AllToAllAlgorithm.AUTO);
    }

    GroupPlans(Topology topology, TransformerModel.Experts experts, AllToAllAlgorithm allToAll) {
        this(topology, experts, allToAll, false);
    }

    /**
     * @param eachGroup whether every group chooses its algorithm by its own estimate (a step's
     *                  estimate times each action alone, so the choice must not depend on which
     *                  group was planned first), rather than once per kind, operation, size and
     *                  group size as a step's task graph does
     */
    GroupPlans(Topology topology, TransformerModel.Experts experts, AllToAllAlgorithm allToAll, boolean eachGroup) {
        this.topology = topology;
        this.experts = experts;
        this.allToAll = allToAll;
        this.eachGroup = eachGroup;
    }

    /** A collective's plan for this group, choosing the algorithm once per operation, size and group size. */
    Work.Communication plan(String kind, CollectiveOp op, int[] devices, long bytes) {
        // the same collective over the same GPUs recurs every layer and microbatch: plan it once
        Work.Communication work = planned.get(new PlanKey(kind, op, bytes, devices));
        if (work == null) {
            int[] group = devices.clone();
            work = planFresh(kind, op, devices, bytes).as(new CommCall(op.id(), bytes, group));
            planned.put(new PlanKey(kind, op, bytes, group), work);
            made.add(new Made(kind, op, group, bytes, work));
        }
        return work;
    }

    /**
     * Whether every plan made so far over GPUs that {@code device} maps (all of them; -1 maps
     * none) moves with them: the plan for the mapped GPUs is the plan made, each flow's ends
     * mapped. Then a replica of the pipeline on the mapped GPUs may take its plans moved rather
     * than made ({@link PipelineReplicas}). Making the plans for the mapped GPUs here is what
     * building that replica would do.
     */
    boolean moveWith(int[] device) {
        for (Made m : List.copyOf(made)) {
            int[] moved = new int[m.devices().length];
            boolean mapped = true;
            for (int i = 0; i < moved.length && mapped; i++) {
                int d = m.devices()[i];
                mapped = d < device.length && device[d] >= 0;
                moved[i] = mapped ? device[d] : -1;
            }
            if (mapped && !plan(m.kind(), m.op(), moved, m.bytes()).equals(m.work().onDevices(d -> device[d]))) {
                return false;
            }
        }
        return true;
    }

    private Work.Communication planFresh(String kind, CollectiveOp op, int[] devices, long bytes) {
        CommGroup group = new CommGroup(devices);
        if (op == CollectiveOp.ALL_TO_ALL && allToAll != AllToAllAlgorithm.AUTO) {
            return allToAll(group, bytes);
        }
        if (op == CollectiveOp.ALL_TO_ALL && PXN.unsupported(op, group, topology).isEmpty()) {
            TransformerModel.Experts e = experts;
            if (e != null && e.nodeLimit() > 0) {
                // node-limited routing: a token crosses the network once per chosen server
                return allToAll(group, bytes, AllToAllAlgorithm.NODE_LIMITED);
            }
            // token exchanges across servers go rail-aligned, as NCCL's PXN sends them
            return Collectives.plan(PXN.name(), op, group, bytes, topology).work();
        }
        if (eachGroup) {
            return Collectives.plan("auto", op, group, bytes, topology).work();
        }
        ChoiceKey key = new ChoiceKey(kind, op, bytes, devices.length);
        Collectives.Choice c = chosen.get(key);
        if (c == null) {
            c = Collectives.plan("auto", op, group, bytes, topology);
            chosen.put(key, c);
            return c.work();
        }
        List<Phase> phases = c.algorithm().plan(op, group, bytes, c.protocol(), topology);
        return new Work.Communication(phases);
    }

    private Work.Communication allToAll(CommGroup group, long bytes) {
        return allToAll(group, bytes, allToAll);
    }

    /** An all-to-all over {@code group} as {@code algorithm} sends it (not auto). */
    private Work.Communication allToAll(CommGroup group, long bytes, AllToAllAlgorithm algorithm) {
        CollectiveOp op = CollectiveOp.ALL_TO_ALL;
        return switch (algorithm) {
            case PXN -> Collectives.plan(PXN.name(), op, group, bytes, topology).work();
            case DIRECT -> Collectives.plan(DIRECT.name(), op, group, bytes, topology).work();
            case NODE_LIMITED -> {
                TransformerModel.Experts e = experts;
                if (e == null || e.nodeLimit() < 1) {
                    throw new IllegalArgumentException("node-limited all-to-all needs a model whose experts have a "
                            + "node limit");
                }
                var limited = new NodeLimitedAllToAll(e.topK(), e.nodeLimit());
                yield new Work.Communication(limited.plan(op, group, bytes, Protocol.SIMPLE, topology));
            }
            case AUTO -> throw new IllegalStateException("auto is chosen per group");
        };
    }

    /**
     * The part of a collective that {@code device} sends, phases it sends nothing in dropped; it
     * keeps the collective's description (each device's part of that one collective).
     */
    static Work.Communication sentBy(Work.Communication all, int device) {
        List<Phase> phases = new ArrayList<>();
        for (Phase ph : all.phases()) {
            List<org.clustersim.core.engine.Flow> own = new ArrayList<>();
            for (org.clustersim.core.engine.Flow f : ph.flows()) {
                if (f.srcDevice() == device) {
                    own.add(f);
                }
            }
            if (!own.isEmpty()) {
                phases.add(new Phase(own, ph.extraLatencyNs()));
            }
        }
        return new Work.Communication(phases, all.calls());
    }
}

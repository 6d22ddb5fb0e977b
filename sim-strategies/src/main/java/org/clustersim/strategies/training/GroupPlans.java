package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.strategies.collective.NodeLimitedAllToAll;
import org.clustersim.strategies.collective.Protocol;
import org.clustersim.strategies.collective.PxnAlgorithm;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.topology.Topology;

/**
 * The plans of a training step's in-pipeline collectives, made once per group: the same
 * collective over the same GPUs recurs every layer and microbatch. The algorithm is chosen
 * (auto) once per kind, operation, size and group size; MoE exchanges across servers go
 * rail-aligned (PXN), or node-limited when the model limits each token's servers.
 */
final class GroupPlans {
    private static final PxnAlgorithm PXN = new PxnAlgorithm();
    private final Topology topology;
    /** The model's experts, for the node limit of MoE exchanges (null for a dense model). */
    private final TransformerModel.Experts experts;
    private final Map<String, Collectives.Choice> chosen = new HashMap<>();
    private final Map<String, Work.Communication> planned = new HashMap<>();

    GroupPlans(Topology topology, TransformerModel.Experts experts) {
        this.topology = topology;
        this.experts = experts;
    }

    /** A collective's plan for this group, choosing the algorithm once per operation, size and group size. */
    Work.Communication plan(String kind, CollectiveOp op, int[] devices, long bytes) {
        // the same collective over the same GPUs recurs every layer and microbatch: plan it once
        return planned.computeIfAbsent(kind + "/" + op.name() + "/" + bytes + "/" + java.util.Arrays.toString(devices),
                k -> planFresh(kind, op, devices, bytes));
    }

    private Work.Communication planFresh(String kind, CollectiveOp op, int[] devices, long bytes) {
        CommGroup group = new CommGroup(devices);
        if (op == CollectiveOp.ALL_TO_ALL && PXN.unsupported(op, group, topology).isEmpty()) {
            TransformerModel.Experts e = experts;
            if (e != null && e.nodeLimit() > 0) {
                // node-limited routing: a token crosses the network once per chosen server
                var limited = new NodeLimitedAllToAll(e.topK(), e.nodeLimit());
                return new Work.Communication(limited.plan(op, group, bytes,
                        Protocol.SIMPLE, topology));
            }
            // token exchanges across servers go rail-aligned, as NCCL's PXN sends them
            return Collectives.plan(PXN.name(), op, group, bytes, topology).work();
        }
        String key = kind + "/" + op.name() + "/" + bytes + "/" + devices.length;
        Collectives.Choice c = chosen.get(key);
        if (c == null) {
            c = Collectives.plan("auto", op, group, bytes, topology);
            chosen.put(key, c);
            return c.work();
        }
        List<Phase> phases = c.algorithm().plan(op, group, bytes, c.protocol(), topology);
        return new Work.Communication(phases);
    }

    /** The part of a collective that {@code device} sends, phases it sends nothing in dropped. */
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
        return new Work.Communication(phases);
    }
}

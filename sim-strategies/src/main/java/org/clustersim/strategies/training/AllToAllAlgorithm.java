package org.clustersim.strategies.training;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How an MoE layer's token all-to-alls (dispatch and combine over each expert-parallel group)
 * are sent: the scenario's {@code parallelism.allToAll}.
 */
public enum AllToAllAlgorithm {
    /**
     * What the simulator chose before the option existed: across servers rail-aligned (PXN), or
     * node-limited when the model limits each token's servers; inside one server the cheapest
     * collective algorithm by estimate (direct).
     */
    AUTO("auto"),
    /** NCCL's PXN: NVLink hand-over to the peer on the destination's rail, then one message per server per rail. */
    PXN("pxn"),
    /** Every GPU sends each other GPU its share straight over its own NIC (or NVLink): n(n-1) flows. */
    DIRECT("direct"),
    /** DeepEP-style dispatch under node-limited routing: one copy per chosen server on the rail, then NVLink fan-out. */
    NODE_LIMITED("node-limited");

    private final String id;

    AllToAllAlgorithm(String id) {
        this.id = id;
    }

    /** The name in scenario files. */
    public String id() {
        return id;
    }

    /** Every algorithm by its scenario name, in declaration order. */
    public static Map<String, AllToAllAlgorithm> byId() {
        Map<String, AllToAllAlgorithm> m = new LinkedHashMap<>();
        for (AllToAllAlgorithm a : values()) {
            m.put(a.id, a);
        }
        return m;
    }
}

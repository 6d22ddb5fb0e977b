package org.clustersim.topology;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Named clusters for the command line: single servers and SuperPOD-style fabrics by size. */
public final class ClusterPresets {
    private static final Map<String, ClusterSpec> PRESETS = new LinkedHashMap<>();

    static {
        add(SwitchedClusterSpec.dgxH100(1));
        add(SwitchedClusterSpec.dgxH200(1));
        add(SwitchedClusterSpec.dgxA100(1));
        add(SwitchedClusterSpec.dgxB200(1));
        add(SwitchedClusterSpec.dgxB300(1));
        add(SwitchedClusterSpec.nvl72(1));
        add(SwitchedClusterSpec.gb200Nvl72(1));
        add(SwitchedClusterSpec.gb300Nvl72(1));
        for (int su : new int[] {1, 2, 4, 8, 16, 32, 64}) {
            add(SuperPodSpec.h100(su));
        }
        add(new FatTreeSpec("fattree-h100-128n-3to1", AcceleratorSpec.H100_SXM, 128, 8, 450e9, 50e9, 64,
                new double[] {3}));
        add(new FatTreeSpec("fattree-h100-1024n", AcceleratorSpec.H100_SXM, 1024, 8, 450e9, 50e9, 64,
                new double[] {1, 1}));
        add(TorusSpec.v4(4, 4, 4));
        add(TorusSpec.v5p(8, 8, 8));
        add(TorusSpec.v5e(16, 16));
        add(TorusSpec.v6e(16, 16));
        add(TorusSpec.v5e(16, 16).withSlices(4));
    }

    private ClusterPresets() {
    }

    private static void add(ClusterSpec s) {
        PRESETS.put(s.name(), s);
    }

    /** Every preset by name, in listing order. */
    public static Map<String, ClusterSpec> all() {
        return java.util.Collections.unmodifiableMap(PRESETS);
    }

    public static Optional<ClusterSpec> byName(String name) {
        return Optional.ofNullable(PRESETS.get(name));
    }
}

package org.clustersim.topology;

import java.util.List;

/** Small switched fabrics of each shape the router handles, for routing tests. */
final class SampleFabrics {
    private SampleFabrics() {
    }

    /**
     * A two-tier oversubscribed fat tree, a three-tier one (several choices per route), a
     * rail-optimized leaf-spine SuperPOD and a three-level one with core switches.
     */
    static List<Topology> switched() {
        return List.of(
                new FatTreeSpec("two-tier", AcceleratorSpec.H100_SXM, 12, 2, 300e9, 50e9, 8, new double[] {2}).build(),
                new FatTreeSpec("three-tier", AcceleratorSpec.H100_SXM, 40, 2, 300e9, 50e9, 8, new double[] {1, 2})
                        .build(),
                new SuperPodSpec("rails", AcceleratorSpec.H100_SXM, 4, 4, 4, 450e9, 250, 50e9, 200, 1200, 1.0).build(),
                new SuperPodSpec("rails-core", AcceleratorSpec.H100_SXM, 12, 8, 2, 450e9, 250, 50e9, 200, 1200, 1.0)
                        .build());
    }
}

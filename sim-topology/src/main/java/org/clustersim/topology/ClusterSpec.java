package org.clustersim.topology;

/** A buildable description of a cluster: the published figures plus the size the user asked for. */
public sealed interface ClusterSpec permits SwitchedClusterSpec, SuperPodSpec, TorusSpec, FatTreeSpec, RackPodSpec {
    /** Preset or user name. */
    String name();

    AcceleratorSpec accelerator();

    /** Servers (or hosts). */
    int nodes();

    int gpusPerNode();

    /** Total accelerators. */
    default int gpus() {
        return nodes() * gpusPerNode();
    }

    /** Builds the graph. */
    Topology build();

    /** One line describing the fabric, for listings and summaries. */
    String describe();
}

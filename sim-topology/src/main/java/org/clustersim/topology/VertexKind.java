package org.clustersim.topology;

/** What a vertex of the cluster graph physically is. */
public enum VertexKind {
    /** A GPU or TPU chip: the only vertices that run work. */
    ACCELERATOR,
    /** An NVSwitch chip (or the NVLink fabric of one scale-up domain seen as one crossbar). */
    NVSWITCH,
    /** A network interface card attached to one accelerator. */
    NIC,
    /** A scale-out packet switch (InfiniBand/Ethernet leaf, spine or core). */
    SWITCH
}

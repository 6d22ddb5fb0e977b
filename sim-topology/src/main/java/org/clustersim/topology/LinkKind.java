package org.clustersim.topology;

/** The technology class of a link, used for naming, grouping in reports and fault sweeps. */
public enum LinkKind {
    /** GPU to NVSwitch (or switch to GPU) inside one scale-up domain. */
    NVLINK,
    /** GPU to its own NIC (PCIe or on-package). */
    GPU_NIC,
    /** NIC to the first scale-out switch. */
    NIC_SWITCH,
    /** Between scale-out switches. */
    SWITCH_SWITCH,
    /** TPU inter-chip interconnect, one torus axis hop. */
    ICI,
    /** Host NIC to the data-center network (between TPU slices or pods). */
    DCN
}

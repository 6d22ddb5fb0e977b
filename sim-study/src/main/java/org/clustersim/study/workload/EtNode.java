package org.clustersim.study.workload;

/**
 * One node of a Chakra execution trace with the attributes the simulation reads, typed. Absent
 * attributes hold their neutral value (0, -1 for a rank or collective type, "" for a name).
 *
 * @param id             the node's id, unique in its file
 * @param name           the node's name (the task's name in the simulated trace)
 * @param kind           what the node does
 * @param ctrlDeps       ids of nodes that must finish first (control dependencies)
 * @param dataDeps       ids of nodes whose outputs it reads (data dependencies)
 * @param durationMicros the duration recorded when the trace was taken, microseconds
 * @param numOps         floating-point operations ({@code num_ops}), 0 when not given
 * @param commType       Chakra's {@code CollectiveCommType} number ({@code comm_type}), -1 when not given
 * @param commBytes      bytes communicated ({@code comm_size}), 0 when not given
 * @param commSrc        sending rank of a receive ({@code comm_src}), -1 when not given
 * @param commDst        receiving rank of a send ({@code comm_dst}), -1 when not given
 * @param commTag        tag pairing a send with its receive ({@code comm_tag}), 0 when not given
 * @param processGroup   the collective's process group name ({@code pg_name}), "" when not given
 * @param cpuOp          whether the node ran on the host ({@code is_cpu_op})
 * @param stream         the stream it runs on ({@code stream}, as clustersim's writer names the
 *                       simulated stream), "" when not given
 */
public record EtNode(long id, String name, Kind kind, long[] ctrlDeps, long[] dataDeps, long durationMicros,
                     double numOps, int commType, long commBytes, int commSrc, int commDst, long commTag,
                     String processGroup, boolean cpuOp, String stream) {

    /** What a node does, from Chakra's {@code NodeType}. */
    public enum Kind {
        /** {@code COMP_NODE}. */
        COMPUTE,
        /** {@code COMM_COLL_NODE}. */
        COLLECTIVE,
        /** {@code COMM_SEND_NODE}. */
        SEND,
        /** {@code COMM_RECV_NODE}. */
        RECV,
        /** {@code MEM_LOAD_NODE}, {@code MEM_STORE_NODE}. */
        MEMORY,
        /** {@code METADATA_NODE} and anything else: kept for its dependencies, takes no time. */
        OTHER
    }

    /** Control and data dependencies together, in that order. */
    public long[] deps() {
        long[] all = new long[ctrlDeps.length + dataDeps.length];
        System.arraycopy(ctrlDeps, 0, all, 0, ctrlDeps.length);
        System.arraycopy(dataDeps, 0, all, ctrlDeps.length, dataDeps.length);
        return all;
    }
}

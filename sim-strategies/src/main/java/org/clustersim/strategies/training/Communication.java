package org.clustersim.strategies.training;

import org.clustersim.strategies.cost.MoeDispatcher;

/**
 * How a step's gradients and tensor-parallel and expert traffic are sent.
 *
 * @param bucketBytes       gradient bucket size
 * @param overlapGradReduce launch each bucket as soon as its gradients exist (else all after the
 *                          rank's whole backward, as Megatron-LM's early data-parallel code did)
 * @param tpCommOverlap     Megatron-core's --tp-comm-overlap: the sequence-parallel collectives of
 *                          the dense blocks chunked and pipelined with their GEMMs
 *                          ({@link TensorParallelOverlap})
 * @param allToAll          how MoE token all-to-alls are sent ({@link AllToAllAlgorithm}; {@code null}: auto)
 * @param moeDispatcher     Megatron-core's MoE token dispatcher ({@link MoeDispatcher}; {@code null}:
 *                          the all-to-all dispatcher): the permutation kernels around the token
 *                          exchange, the count exchange and the host synchronisation
 * @param dcnPipelined      on TPU slices joined by DCN: XLA's data-parallel all-reduce optimisation
 *                          ({@code --xla_tpu_enable_data_parallel_all_reduce_opt}, which MaxText's
 *                          multi-slice scripts set): each layer's cross-slice gradient reduction is
 *                          pipelined into the next iterations of the scanned backward; false: it stays
 *                          in its own iteration, and the next layer's backward waits for the part the
 *                          iteration's last weight gradients (the attention block's) need
 */
public record Communication(long bucketBytes, boolean overlapGradReduce, boolean tpCommOverlap,
                            AllToAllAlgorithm allToAll, boolean dcnPipelined, MoeDispatcher moeDispatcher) {
    /** Megatron-LM's classic bucket, overlapped gradient reduction, no TP overlap, auto all-to-all. */
    public static final Communication DEFAULTS = new Communication(TrainingStep.DEFAULT_BUCKET, true, false,
            AllToAllAlgorithm.AUTO, true);

    /** With Megatron-core's all-to-all token dispatcher. */
    public Communication(long bucketBytes, boolean overlapGradReduce, boolean tpCommOverlap,
                         AllToAllAlgorithm allToAll, boolean dcnPipelined) {
        this(bucketBytes, overlapGradReduce, tpCommOverlap, allToAll, dcnPipelined, MoeDispatcher.ALLTOALL);
    }

    /** The same with XLA's cross-slice reductions pipelined (the default). */
    public Communication(long bucketBytes, boolean overlapGradReduce, boolean tpCommOverlap,
                         AllToAllAlgorithm allToAll) {
        this(bucketBytes, overlapGradReduce, tpCommOverlap, allToAll, true);
    }

    public Communication {
        if (allToAll == null) {
            allToAll = AllToAllAlgorithm.AUTO;
        }
        if (moeDispatcher == null) {
            moeDispatcher = MoeDispatcher.ALLTOALL;
        }
    }
}

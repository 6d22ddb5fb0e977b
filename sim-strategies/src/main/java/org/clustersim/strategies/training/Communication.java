package org.clustersim.strategies.training;

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
 */
public record Communication(long bucketBytes, boolean overlapGradReduce, boolean tpCommOverlap,
                            AllToAllAlgorithm allToAll) {
    /** Megatron-LM's classic bucket, overlapped gradient reduction, no TP overlap, auto all-to-all. */
    public static final Communication DEFAULTS = new Communication(TrainingStep.DEFAULT_BUCKET, true, false,
            AllToAllAlgorithm.AUTO);

    public Communication {
        if (allToAll == null) {
            allToAll = AllToAllAlgorithm.AUTO;
        }
    }
}

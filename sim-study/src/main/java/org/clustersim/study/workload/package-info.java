/**
 * Imported workloads: Chakra execution traces (one protobuf file per rank, MLCommons' format)
 * read into typed nodes ({@link org.clustersim.study.workload.EtTraceReader}) and mapped onto a
 * task graph over a cluster ({@link org.clustersim.study.workload.EtTaskGraph}), so a traced job
 * runs on any cluster the simulator knows. The generated schema classes live in
 * {@code org.clustersim.study.workload.et}. See docs/workloads.md.
 */
package org.clustersim.study.workload;

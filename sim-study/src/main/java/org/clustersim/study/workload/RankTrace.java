package org.clustersim.study.workload;

import java.nio.file.Path;
import java.util.List;

/**
 * One rank's execution trace: the file it came from and its nodes in file order.
 *
 * @param file    the trace file (named in every error about it)
 * @param rank    the rank, from the file name
 * @param version the schema version its metadata states, "" when not given
 * @param nodes   its nodes in file order
 */
public record RankTrace(Path file, int rank, String version, List<EtNode> nodes) {
    public RankTrace {
        nodes = List.copyOf(nodes);
    }
}

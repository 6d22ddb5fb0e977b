package org.clustersim.study.workload;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.clustersim.study.workload.et.EtDef;

/** Writes small Chakra traces for tests with the generated builders, as Chakra's generator does. */
final class EtFiles {
    private final List<List<EtDef.Node>> ranks = new ArrayList<>();

    EtFiles(int ranks) {
        for (int r = 0; r < ranks; r++) {
            this.ranks.add(new ArrayList<>());
        }
    }

    static EtDef.AttributeProto intAttr(String name, long v) {
        return EtDef.AttributeProto.newBuilder().setName(name).setInt64Val(v).build();
    }

    static EtDef.AttributeProto textAttr(String name, String v) {
        return EtDef.AttributeProto.newBuilder().setName(name).setStringVal(v).build();
    }

    static EtDef.Node.Builder node(long id, String name, EtDef.NodeType type) {
        return EtDef.Node.newBuilder().setId(id).setName(name).setType(type);
    }

    EtFiles compute(int rank, long id, String name, long micros, long... dataDeps) {
        EtDef.Node.Builder n = node(id, name, EtDef.NodeType.COMP_NODE).setDurationMicros(micros);
        for (long d : dataDeps) {
            n.addDataDeps(d);
        }
        return add(rank, n.build());
    }

    EtFiles collective(int rank, long id, String name, EtDef.CollectiveCommType type, long bytes, String pg,
                       long... dataDeps) {
        EtDef.Node.Builder n = node(id, name, EtDef.NodeType.COMM_COLL_NODE)
                .addAttr(intAttr("comm_type", type.getNumber())).addAttr(intAttr("comm_size", bytes));
        if (pg != null) {
            n.addAttr(textAttr("pg_name", pg));
        }
        for (long d : dataDeps) {
            n.addDataDeps(d);
        }
        return add(rank, n.build());
    }

    EtFiles add(int rank, EtDef.Node node) {
        ranks.get(rank).add(node);
        return this;
    }

    /** Writes job.RANK.et into {@code dir}; returns the folder. */
    Path write(Path dir) throws IOException {
        Files.createDirectories(dir);
        for (int r = 0; r < ranks.size(); r++) {
            try (OutputStream out = Files.newOutputStream(dir.resolve("job." + r + ".et"))) {
                EtDef.GlobalMetadata.newBuilder().setVersion("0.0.4").build().writeDelimitedTo(out);
                for (EtDef.Node n : ranks.get(r)) {
                    n.writeDelimitedTo(out);
                }
            }
        }
        return dir;
    }
}

package org.clustersim.study.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import com.google.protobuf.CodedOutputStream;
import org.clustersim.core.input.InputException;
import org.clustersim.study.workload.et.EtDef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EtTraceReaderTest {
    @TempDir
    Path tmp;

    private RankTrace readOne(EtDef.Node... nodes) throws IOException {
        EtFiles f = new EtFiles(1);
        for (EtDef.Node n : nodes) {
            f.add(0, n);
        }
        Path dir = f.write(tmp.resolve("one"));
        return new EtTraceReader().read(dir.resolve("job.0.et"), 0);
    }

    private static String message(Runnable r) {
        return assertThrows(InputException.class, r::run).getMessage();
    }

    @Test
    void readsTheAttributesTheSimulationUses() throws IOException {
        RankTrace t = readOne(EtFiles.node(5, "send", EtDef.NodeType.COMM_SEND_NODE)
                        .addAttr(EtFiles.intAttr("comm_dst", 3))
                        .addAttr(EtDef.AttributeProto.newBuilder().setName("comm_size").setUint64Val(4096))
                        .addAttr(EtFiles.intAttr("comm_tag", 7)).build(),
                EtFiles.node(6, "mm", EtDef.NodeType.COMP_NODE).addCtrlDeps(5).addDataDeps(5).setDurationMicros(12)
                        .addAttr(EtDef.AttributeProto.newBuilder().setName("num_ops").setDoubleVal(3e9))
                        .addAttr(EtDef.AttributeProto.newBuilder().setName("is_cpu_op").setBoolVal(true)).build());
        assertEquals("0.0.4", t.version());
        EtNode send = t.nodes().get(0);
        assertEquals(EtNode.Kind.SEND, send.kind());
        assertEquals(3, send.commDst());
        assertEquals(4096, send.commBytes());
        assertEquals(7, send.commTag());
        EtNode mm = t.nodes().get(1);
        assertEquals(3e9, mm.numOps());
        assertEquals(12, mm.durationMicros());
        assertTrue(mm.cpuOp());
        assertArrayEquals(new long[] {5, 5}, mm.deps());
    }

    @Test
    void unknownFieldsAndAttributesAreIgnored() throws IOException {
        // a node with an extra field number 99 (a later schema) and an attribute this reader does not know
        EtDef.Node known = EtFiles.node(1, "mm", EtDef.NodeType.COMP_NODE).setDurationMicros(3)
                .addAttr(EtFiles.textAttr("op_schema", "aten::mm(Tensor self, Tensor mat2) -> Tensor")).build();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        known.writeTo(body);
        CodedOutputStream extra = CodedOutputStream.newInstance(body);
        extra.writeUInt64(99, 12345);
        extra.flush();
        Path file = tmp.resolve("x.0.et");
        try (OutputStream out = Files.newOutputStream(file)) {
            EtDef.GlobalMetadata.newBuilder().setVersion("9.9").build().writeDelimitedTo(out);
            CodedOutputStream c = CodedOutputStream.newInstance(out);
            c.writeUInt32NoTag(body.size());
            c.writeRawBytes(body.toByteArray());
            c.flush();
        }
        RankTrace t = new EtTraceReader().read(file, 0);
        assertEquals(1, t.nodes().size());
        assertEquals(3, t.nodes().get(0).durationMicros());
    }

    @Test
    void aTruncatedFileNamesTheFileAndTheLastNodeRead() throws IOException {
        EtFiles f = new EtFiles(1).compute(0, 1, "a", 1).compute(0, 2, "b", 1);
        Path file = f.write(tmp.resolve("t")).resolve("job.0.et");
        byte[] whole = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(whole, whole.length - 3));
        String m = message(() -> new EtTraceReader().read(file, 0));
        assertTrue(m.startsWith(file.toString()), m);
        assertTrue(m.contains("after node 1"), m);
        assertTrue(m.contains("truncated"), m);
    }

    @Test
    void anAttributeOfTheWrongTypeNamesNodeAndAttribute() {
        String m = message(() -> {
            try {
                readOne(EtFiles.node(7, "ar", EtDef.NodeType.COMM_COLL_NODE)
                        .addAttr(EtFiles.textAttr("comm_type", "ALL_REDUCE")).build());
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        assertTrue(m.contains("job.0.et: node 7 (ar): attribute comm_type holds string_val; expected a number"), m);
    }

    @Test
    void aDependencyOnAMissingNodeIsLocated() {
        String m = message(() -> {
            try {
                readOne(EtFiles.node(3, "mm", EtDef.NodeType.COMP_NODE).addDataDeps(42).build());
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        assertTrue(m.contains("node 3 (mm): data_deps names node 42"), m);
    }

    @Test
    void duplicateIdsAreRefused() {
        String m = message(() -> {
            try {
                readOne(EtFiles.node(3, "a", EtDef.NodeType.COMP_NODE).build(),
                        EtFiles.node(3, "b", EtDef.NodeType.COMP_NODE).build());
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        assertTrue(m.contains("node 3 (b): id appears twice"), m);
    }

    @Test
    void filesAreOrderedByTheRankInTheirNameAndGapsAreRefused() throws IOException {
        EtFiles f = new EtFiles(12);
        Path dir = f.write(tmp.resolve("many"));
        List<Path> files = EtTraceReader.files(tmp, "many/job.*.et", "workload.chakraTrace");
        assertEquals(12, files.size());
        assertEquals("job.10.et", files.get(10).getFileName().toString());
        Files.delete(dir.resolve("job.4.et"));
        String m = message(() -> EtTraceReader.files(tmp, "many", "workload.chakraTrace"));
        assertTrue(m.contains("workload.chakraTrace: no trace file for rank 4"), m);
        assertTrue(message(() -> EtTraceReader.files(tmp, "none/*.et", "workload.chakraTrace"))
                .contains("does not exist"));
    }

    @Test
    void filesOverTheLimitsAreRefusedBeforeParsing() throws IOException {
        EtFiles f = new EtFiles(2).compute(0, 1, "a", 1).compute(0, 2, "b", 1).compute(1, 1, "c", 1);
        Path dir = f.write(tmp.resolve("lim"));
        List<Path> files = EtTraceReader.files(dir, ".", "workload.chakraTrace");
        long size = Files.size(files.get(0));
        assertTrue(message(() -> new EtTraceReader(size - 1, 100).read(files)).contains("job.0.et: " + size + " bytes"));
        assertTrue(message(() -> new EtTraceReader(size, 2).read(files)).contains("more than 2 nodes"));
        assertEquals(3, new EtTraceReader(size, 3).read(files).stream().mapToInt(t -> t.nodes().size()).sum());
    }

    @Test
    void damagedFilesAreReadOrRefusedWithALocatedErrorNeverAnythingElse() throws IOException {
        EtFiles f = new EtFiles(1).compute(0, 1, "a", 5);
        f.add(0, EtFiles.node(2, "ar", EtDef.NodeType.COMM_COLL_NODE).addDataDeps(1)
                .addAttr(EtFiles.intAttr("comm_type", 0)).addAttr(EtFiles.intAttr("comm_size", 1 << 20))
                .addAttr(EtFiles.textAttr("pg_name", "dp")).build());
        Path file = f.write(tmp.resolve("fuzz")).resolve("job.0.et");
        byte[] good = Files.readAllBytes(file);
        java.util.Random random = new java.util.Random(36);
        int refused = 0;
        for (int i = 0; i < 300; i++) {
            byte[] bad = good.clone();
            switch (i % 3) {
                case 0 -> bad[random.nextInt(bad.length)] = (byte) random.nextInt(256);
                case 1 -> bad = Arrays.copyOf(bad, random.nextInt(bad.length));
                default -> {
                    int at = random.nextInt(bad.length);
                    byte[] grown = new byte[bad.length + 1];
                    System.arraycopy(bad, 0, grown, 0, at);
                    grown[at] = (byte) random.nextInt(256);
                    System.arraycopy(bad, at, grown, at + 1, bad.length - at);
                    bad = grown;
                }
            }
            Files.write(file, bad);
            try {
                new EtTraceReader().read(file, 0);
            } catch (InputException e) {
                assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
                refused++;
            }
        }
        assertTrue(refused > 50, "only " + refused + " of 300 damaged files refused");
    }
}

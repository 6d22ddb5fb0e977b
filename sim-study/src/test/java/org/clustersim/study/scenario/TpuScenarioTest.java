package org.clustersim.study.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFileException;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.training.XlaRemat;
import org.clustersim.topology.Topology;
import org.clustersim.topology.TorusSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TPU clusters, MaxText meshes and remat policies as read from scenario files. */
class TpuScenarioTest {
    @TempDir
    Path dir;

    private static String text(String cluster, String parallelism, String training) {
        return """
                cluster:
                %s
                model:
                  preset: llama3-8b
                parallelism:
                %s
                training:
                  globalBatch: 64
                  seqLen: 1024
                %s
                """.formatted(cluster.indent(2).stripTrailing(), parallelism.indent(2).stripTrailing(),
                training.indent(2).stripTrailing());
    }

    private Scenario read(String cluster, String parallelism, String training) throws IOException {
        Path p = dir.resolve("s.yaml");
        Files.writeString(p, text(cluster, parallelism, training));
        return new ScenarioReader().read(p);
    }

    private List<InputError> errors(String cluster, String parallelism, String training) throws IOException {
        Path p = dir.resolve("s.yaml");
        Files.writeString(p, text(cluster, parallelism, training));
        return assertThrows(InputFileException.class, () -> new ScenarioReader().read(p)).errors();
    }

    private static String chip(Topology t, int device) {
        return t.device(device).name();
    }

    @Test
    void parallelBlocksOnATensorAxisNeedTheCollectiveMatmulOff() throws IOException {
        Path p = dir.resolve("pb.yaml");
        Files.writeString(p, text("preset: tpu-v5p\ntopology: 4x4x4", "mesh: {ici_fsdp: 16, ici_tensor: 4}", "")
                .replace("  preset: llama3-8b\n", "  preset: llama3-8b\n  parallelBlocks: true\n"));
        List<InputError> e = assertThrows(InputFileException.class, () -> new ScenarioReader().read(p)).errors();
        assertEquals(1, e.size(), e::toString);
        assertEquals("parallelism.collectiveMatmul", e.get(0).path());
        assertTrue(e.get(0).message().startsWith("true by default") && e.get(0).message().contains("parallel blocks"),
                e.get(0).message());
        Files.writeString(p, Files.readString(p).replace("ici_tensor: 4}", "ici_tensor: 4}\n  collectiveMatmul: false"));
        assertTrue(new ScenarioReader().read(p).model().parallelBlocks());
    }

    @Test
    void aMeshBecomesTheTrainingLayoutWithTensorOnTheXRings() throws IOException {
        Scenario s = read("preset: tpu-v5p\ntopology: 4x4x4", "mesh: {ici_fsdp: 16, ici_tensor: 4}", "");
        Scenario.Parallelism p = s.parallelism();
        assertEquals(4, p.layout().mesh().tp());
        assertEquals(16, p.layout().mesh().dp());
        assertEquals(3, p.layout().zero().stage(), "fsdp shards weights, gradients and optimizer state");
        assertEquals(0, p.layout().zero().shardGroup(), "the whole data axis is one FSDP group");
        assertTrue(p.layout().sequenceParallel() && p.layout().comm().tpCommOverlap(), "tensor parallelism as a collective matmul");
        TorusSpec torus = (TorusSpec) s.cluster();
        assertEquals(100e9, torus.iciBytesPerS(), "v5p: 1200 GB/s per chip over 6 links, both ways");
        Topology t = torus.build();
        assertEquals("slice0.chip[1,0,0]", chip(t, 1), "tensor rank 1 is the x neighbour");
        assertEquals("slice0.chip[0,1,0]", chip(t, 4), "fsdp rank 1 is the y neighbour");
        assertEquals("slice0.chip[0,0,1]", chip(t, 16));
        assertEquals(16, t.spec().orElseThrow().nodes(), "4 chips per host");
    }

    @Test
    void anExplicitMappingPlacesTheAxesWhereItSays() throws IOException {
        Scenario s = read("preset: tpu-v5p\ntopology: 4x4x4", "mesh: {ici_fsdp: -1, ici_tensor: 4}\n"
                + "meshMapping: {tensor: [z], fsdp: [x, y]}", "");
        assertEquals(16, s.parallelism().layout().mesh().dp(), "-1 takes what the tensor axis leaves");
        Topology t = s.cluster().build();
        assertEquals("slice0.chip[0,0,1]", chip(t, 1), "tensor rank 1 along z");
        assertEquals("slice0.chip[1,0,0]", chip(t, 4), "fsdp rank 1 along x");
        Scenario split = read("preset: tpu-v5p\ntopology: 4x4x4", "mesh: {ici_fsdp: 32, ici_tensor: 2}\n"
                + "meshMapping: {tensor: ['z:2'], fsdp: [x, y, 'z:2']}", "");
        Topology u = split.cluster().build();
        assertEquals("slice0.chip[0,0,1]", chip(u, 1));
        assertEquals("slice0.chip[0,0,2]", chip(u, 2 * 16), "fsdp's z factor strides past the tensor pairs");
    }

    @Test
    void slicesJoinedByDcnShardInsideASliceAndReplicateAcross() throws IOException {
        Scenario s = read("preset: tpu-v5e\ntopology: 4x4\nslices: 2", "mesh: {ici_fsdp: 16, dcn_data: 2}", "");
        Scenario.Parallelism p = s.parallelism();
        assertEquals(32, p.layout().mesh().dp());
        assertEquals(16, p.layout().zero().shardGroup(), "hybrid: FSDP inside the slice, data parallel across");
        TorusSpec torus = (TorusSpec) s.cluster();
        assertEquals(2, torus.slices());
        assertEquals(50e9, torus.iciBytesPerS(), "v5e: 400 GB/s per chip over 4 ports, both ways");
        assertEquals(25e9, torus.dcnBytesPerS(), "2 x 100 Gbps NICs per 8-chip host");
        assertEquals("slice1.chip[0,0]", chip(torus.build(), 16));
        assertFalse(torus.wraps(0), "v5e wraps only axes of 16");
        assertTrue(p.layout().comm().dcnPipelined(), "XLA's data-parallel all-reduce pipelining by default");
        assertFalse(read("preset: tpu-v5e\ntopology: 4x4\nslices: 2", "mesh: {ici_fsdp: 16, dcn_data: 2}\n"
                + "dcnAllReducePipelining: false", "").parallelism().layout().comm().dcnPipelined());
    }

    @Test
    void remattingPoliciesMapOntoRecomputation() throws IOException {
        String cluster = "preset: tpu-v5e\ntopology: 4x4";
        String mesh = "mesh: {ici_fsdp: 16}";
        assertEquals(Scenario.Recompute.FULL, read(cluster, mesh, "remat: full").training().recompute());
        Scenario.Training minimal = read(cluster, mesh, "remat: minimal").training();
        assertEquals(Scenario.Recompute.SELECTIVE, minimal.recompute());
        assertEquals(Set.of(RecomputeModule.CORE_ATTN), minimal.recomputeModules());
        assertEquals(Set.of(RecomputeModule.CORE_ATTN, RecomputeModule.MLP),
                read(cluster, mesh, "remat: save_dot_except_mlpwi").training().recomputeModules());
        assertEquals("training.remat", errors(cluster, mesh, "remat: full\nrecompute: full").get(0).path());
    }

    @Test
    void onAMeshThePolicyAlsoSaysWhatXlaKeepsAndOffloads() throws IOException {
        String cluster = "preset: tpu-v5e\ntopology: 4x4";
        String mesh = "mesh: {ici_fsdp: 16}";
        Scenario offloaded = read(cluster, mesh, "remat: qkv_proj_offloaded");
        XlaRemat p = offloaded.trainingStep().numerics().xlaRemat();
        assertEquals(Set.of(XlaRemat.Tensor.QUERY_PROJ, XlaRemat.Tensor.KEY_PROJ, XlaRemat.Tensor.VALUE_PROJ), p.host());
        assertEquals(Set.of(XlaRemat.Tensor.DECODER_LAYER_INPUT), p.device());
        // the same replay as save_qkv_proj: q, k, v come back from the host rather than being recomputed
        assertEquals(read(cluster, mesh, "remat: save_qkv_proj").training().recomputeModules(),
                offloaded.training().recomputeModules());
        Scenario custom = read(cluster, mesh, "remat: custom\nrematTensors: {decoder_layer_input: offload, "
                + "out_proj: device, query_proj: offload}");
        XlaRemat c = custom.trainingStep().numerics().xlaRemat();
        assertEquals(Set.of(XlaRemat.Tensor.OUT_PROJ), c.device());
        assertEquals(Set.of(XlaRemat.Tensor.DECODER_LAYER_INPUT, XlaRemat.Tensor.QUERY_PROJ), c.host());
        assertEquals(Scenario.Recompute.FULL, custom.training().recompute(), "k and v recomputed: the whole layer is");
        // a recompute setting on a mesh is read as the MaxText policy doing the same
        assertEquals(XlaRemat.full(), read(cluster, mesh, "recompute: full").trainingStep().numerics().xlaRemat());
        assertEquals("training.rematTensors", errors(cluster, mesh, "remat: full\nrematTensors: {out_proj: device}")
                .get(0).path());
        assertEquals("training.rematTensors.decoder_layer_input", errors(cluster, mesh,
                "remat: custom\nrematTensors: {decoder_layer_input: remat}").get(0).path());
        // without a mesh (a GPU cluster) the memory picture stays Megatron's
        assertNull(read("preset: dgx-h100\nnodes: 2", "dp: 16", "remat: minimal").trainingStep().numerics().xlaRemat());
    }

    @Test
    void badTpuInputIsReportedWithItsField() throws IOException {
        assertEquals("cluster.topology", errors("preset: tpu-v5p\ntopology: 8x8", "mesh: {ici_fsdp: 64}", "")
                .get(0).path());
        assertEquals("cluster.topology", errors("preset: tpu-v5e\ntopology: 32x16", "mesh: {ici_fsdp: 512}", "")
                .get(0).path());
        InputError product = errors("preset: tpu-v5p\ntopology: 4x4x4", "mesh: {ici_fsdp: 16}", "").get(0);
        assertEquals("parallelism.mesh", product.path());
        assertTrue(product.message().contains("16 chips") && product.message().contains("64"), product.message());
        InputError mapping = errors("preset: tpu-v5p\ntopology: 4x4x4", "mesh: {ici_fsdp: 16, ici_tensor: 4}\n"
                + "meshMapping: {tensor: [x, y], fsdp: [z]}", "").get(0);
        assertEquals("parallelism.meshMapping", mapping.path());
        assertEquals("parallelism.tp", errors("preset: tpu-v5p\ntopology: 4x4x4", "mesh: {ici_fsdp: 64}\ntp: 2", "")
                .get(0).path());
        assertEquals("parallelism.mesh", errors("preset: dgx-h100\nnodes: 1", "mesh: {ici_fsdp: 8}", "").get(0)
                .path());
        assertEquals("parallelism.mesh", errors("preset: tpu-v5p\ntopology: 4x4x4", "mesh: {ici_fsdp: 8, ici_expert: 8}",
                "").get(0).path());
        InputError unknown = errors("preset: tpu-v5p\ntopology: 4x4x4", "mesh: {ici_fdsp: 64}", "").stream()
                .filter(e -> e.path().equals("parallelism.mesh.ici_fdsp")).findFirst().orElseThrow();
        assertTrue(unknown.message().contains("ici_fsdp"), unknown.message());
    }

    @Test
    void fieldsOfTheOtherKindOfClusterAreReportedAsItsAfterTheirOwnChecks() throws IOException {
        InputError topology = only(errors("preset: dgx-h100\nnodes: 1\ntopology: 16x16", "tp: 8", ""));
        assertEquals("cluster.topology", topology.path());
        assertTrue(topology.message().contains("GPU preset") && topology.message().contains("tpu-v5e"),
                topology.message());
        InputError nodes = only(errors("preset: tpu-v5e\ntopology: 4x4\nnvlinkBandwidthGBps: 900",
                "mesh: {ici_fsdp: 16}", ""));
        assertEquals("cluster.nvlinkBandwidthGBps", nodes.path());
        assertTrue(nodes.message().contains("TPU preset"), nodes.message());
        // a TPU field on a GPU cluster is still checked for its own form first
        List<String> shape = errors("preset: dgx-h100\nnodes: 1\ntopology: 16 by 16", "tp: 8", "").stream()
                .map(InputError::message).toList();
        assertTrue(shape.stream().anyMatch(m -> m.contains("expected a slice shape")), shape.toString());
        InputError matmul = only(errors("preset: tpu-v5e\ntopology: 4x4", "dp: 16\ncollectiveMatmul: false", ""));
        assertEquals("parallelism.collectiveMatmul", matmul.path());
        InputError dcn = only(errors("preset: tpu-v5e\ntopology: 4x4", "dp: 16\ndcnAllReducePipelining: false", ""));
        assertEquals("parallelism.dcnAllReducePipelining", dcn.path());
        assertTrue(dcn.message().contains("without parallelism.mesh"), dcn.message());
    }

    @Test
    void meshDegreesTakeMinusOneForTheRestButNotZero() throws IOException {
        Scenario s = read("preset: tpu-v5e\ntopology: 4x4\nslices: 2", "mesh: {ici_fsdp: -1, ici_tensor: 2, "
                + "dcn_data: -1}", "");
        assertEquals(2, s.parallelism().layout().mesh().tp());
        assertEquals(16, s.parallelism().layout().mesh().dp(), "fsdp 8 inside the slice, data 2 across");
        InputError zero = only(errors("preset: tpu-v5e\ntopology: 4x4", "mesh: {ici_fsdp: 16, ici_data: 0}", ""));
        assertEquals("parallelism.mesh.ici_data", zero.path());
        assertTrue(zero.message().contains("or -1"), zero.message());
        InputError piece = only(errors("preset: tpu-v5p\ntopology: 4x4x4", "mesh: {ici_fsdp: 16, ici_tensor: 4}\n"
                + "meshMapping: {tensor: [w], fsdp: [x, y]}", ""));
        assertEquals("parallelism.meshMapping.tensor[0]", piece.path());
        // a mesh whose degrees overflow an int is a located error, not an arithmetic one
        InputError huge = errors("preset: tpu-v5e\ntopology: 4x4", "mesh: {ici_fsdp: 65536, ici_data: 65536, "
                + "ici_tensor: -1}", "").get(0);
        assertEquals("parallelism.mesh.ici_tensor", huge.path());
    }

    @Test
    void aTorusOrRackFabricPointsAtThePresetsThatBuildIt() throws IOException {
        InputError rack = only(errors("preset: dgx-h100\nnodes: 1\nfabric: NVL72", "tp: 8", ""));
        assertEquals("cluster.fabric", rack.path());
        assertTrue(rack.message().contains("expected one of") && rack.message().contains("cluster.preset: nvl72"),
                rack.message());
    }

    private static InputError only(List<InputError> errors) {
        assertEquals(1, errors.size(), errors.toString());
        return errors.get(0);
    }
}

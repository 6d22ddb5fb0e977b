package org.clustersim.strategies.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.clustersim.core.input.Diagnostics;
import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFileException;
import org.clustersim.core.input.SourceTreeReader;
import org.clustersim.topology.AcceleratorSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceProfileTest {
    @TempDir
    Path dir;

    @Test
    void everyBundledProfileLoadsAndAgreesWithItsChipsSpecification() {
        Map<String, AcceleratorSpec> chips = Map.ofEntries(Map.entry("h100-sxm", AcceleratorSpec.H100_SXM),
                Map.entry("a100-sxm-80gb", AcceleratorSpec.A100_SXM_80GB), Map.entry("b200", AcceleratorSpec.B200),
                Map.entry("gb200", AcceleratorSpec.GB200), Map.entry("b300", AcceleratorSpec.B300),
                Map.entry("gb300", AcceleratorSpec.GB300), Map.entry("h200-sxm", AcceleratorSpec.H200_SXM),
                Map.entry("tpu-v4", AcceleratorSpec.TPU_V4), Map.entry("tpu-v5e", AcceleratorSpec.TPU_V5E),
                Map.entry("tpu-v5p", AcceleratorSpec.TPU_V5P), Map.entry("tpu-v6e", AcceleratorSpec.TPU_V6E),
                Map.entry("tpu-7x", AcceleratorSpec.TPU_7X));
        for (String name : DeviceProfiles.NAMES) {
            DeviceProfile p = DeviceProfiles.bundled(name);
            assertEquals(name, p.name());
            assertEquals(chips.get(name), p.accelerator(), name);
            assertTrue(p.defaultAttention() == AttentionImpl.STANDARD || p.attention().covers(p.defaultAttention()),
                    name + " default attention has tables (standard needs none)");
            assertTrue(p.bf16Gemm().bestFlops() < p.bf16Flops(), name + " best GEMM below peak");
        }
        assertNull(DeviceProfiles.bundled("a100-sxm-80gb").fp8Gemm(), "A100 has no FP8 units");
    }

    @Test
    void thePublishedH100AndA100AttentionDefaultsFollowTransformerEngine() {
        assertEquals(AttentionImpl.CUDNN, DeviceProfiles.bundled("h100-sxm").defaultAttention());
        assertEquals(AttentionImpl.FLASH2, DeviceProfiles.bundled("a100-sxm-80gb").defaultAttention());
    }

    @Test
    void launchCostsFloorShortKernelsAndAddAGapToLongOnes() {
        Launch l = new Launch(5_000, 580);
        assertEquals(3 * 5_000, l.ns(300, 3), 1e-9, "three 100 ns kernels wait for the host");
        assertEquals(1_000_000 + 2 * 580, l.ns(1_000_000, 2), 1e-9, "two long kernels pay the gap each");
    }

    private static List<InputError> errors(Path file) {
        Diagnostics d = new Diagnostics(file);
        new DeviceProfileReader(d).read(new SourceTreeReader().read(file), "");
        InputFileException e = assertThrows(InputFileException.class, d::throwIfAny);
        return e.errors();
    }

    private Path broken(String from, String to) throws IOException {
        String text = new String(DeviceProfile.class.getResourceAsStream(DeviceProfiles.resource("h100-sxm"))
                .readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(text.contains(from), from);
        Path f = dir.resolve("profile.yaml");
        Files.writeString(f, text.replace(from, to));
        return f;
    }

    private static int lineOf(Path f, String text) throws IOException {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i + 1;
            }
        }
        throw new AssertionError(text);
    }

    @Test
    void aBestRateAbovePeakIsRejectedWithItsLineAndField() throws IOException {
        Path f = broken("bestTflops: 794.5", "bestTflops: 1200");
        List<InputError> errs = errors(f);
        assertEquals(1, errs.size(), errs.toString());
        assertEquals("gemm.bf16.model.bestTflops", errs.get(0).path());
        assertEquals(lineOf(f, "bestTflops: 1200"), errs.get(0).location().line());
        assertEquals("found 1200, expected at most the peak (989)", errs.get(0).message());
    }

    @Test
    void everyProblemOfAProfileIsReportedAtOnce() throws IOException {
        Path f = broken("  norm: [1, 2]\n", "  norm: [1]\n  normm: [1, 2]\n");
        String twice = Files.readString(f).replace("streamEfficiency: 0.8985", "streamEfficiency: 1.5")
                .replace("[[512, 282], [2048, 318]", "[[2048, 282], [512, 318]");
        Files.writeString(f, twice);
        List<InputError> errs = errors(f);
        List<String> paths = errs.stream().map(InputError::path).toList();
        assertTrue(paths.contains("memory.streamEfficiency"), paths.toString());
        assertTrue(paths.contains("kernels.norm"), paths.toString());
        assertTrue(paths.contains("kernels.normm"), "unknown field: " + paths);
        assertTrue(paths.contains("attention.tables[0].points"), "lengths must ascend: " + paths);
        assertTrue(errs.stream().anyMatch(e -> e.message().contains("did you mean 'norm'")), errs.toString());
    }

    @Test
    void aDefaultAttentionWithoutTablesIsRejected() throws IOException {
        Path f = broken("default: cudnn", "default: flash3");
        assertFalse(new DeviceProfileReader(new Diagnostics(f)).read(new SourceTreeReader().read(f), "").isEmpty(),
                "flash3 has tables on H100");
        Path g = broken("  tables:\n", "  tables: []\n  old:\n");
        List<InputError> errs = errors(g);
        assertTrue(errs.stream().anyMatch(e -> e.path().equals("attention.default")
                && e.message().contains("has no cudnn table")), errs.toString());
    }

    @Test
    void communicationKernelsTakeTheirSmsAndHbmShareFromCompute() throws IOException {
        CommKernels h100 = DeviceProfiles.bundled("h100-sxm").commKernels();
        // 24 of 132 SMs and 3 points of HBM: 0.2118, the 21% an 8 x H100 all-gather cost a GEMM beside it
        assertEquals(24.0 / 132 + 0.03, h100.computeShare(h100.nvlink()), 1e-12);
        assertEquals(2.0 / 132, h100.computeShare(h100.p2p()), 1e-12);
        assertEquals(16.0 / 108 + 0.005, DeviceProfiles.bundled("a100-sxm-80gb").commKernels()
                .computeShare(DeviceProfiles.bundled("a100-sxm-80gb").commKernels().network()), 1e-12);
        Path f = broken("  nvlink: {sms: 24, hbmShare: 0.03}", "  nvlink: {sms: 200, hbmShare: 0.03}");
        InputError e = errors(f).get(0);
        assertEquals("communication.nvlink.sms", e.path());
        assertEquals(lineOf(f, "sms: 200"), e.location().line());
        assertTrue(e.message().contains("expected an integer from 0 to 132"), e.message());
    }

    @Test
    void theRemovedOverlappedGemmEfficiencyIsRejectedWithItsLineAndReason() throws IOException {
        Path f = broken("  p2p: {sms: 2, hbmShare: 0}", "  p2p: {sms: 2, hbmShare: 0}\n  overlappedGemmEfficiency: 0.80");
        List<InputError> errs = errors(f);
        assertEquals(1, errs.size(), errs.toString());
        InputError e = errs.get(0);
        assertEquals("communication.overlappedGemmEfficiency", e.path());
        assertEquals(lineOf(f, "overlappedGemmEfficiency"), e.location().line());
        assertTrue(e.message().startsWith("removed: "), e.message());
        assertEquals(f, e.file());
        assertTrue(e.format().contains("profile.yaml"), e.format());
    }

    @Test
    void aProfileWithoutCommunicationLeavesOverlapFree() throws IOException {
        String text = new String(DeviceProfile.class.getResourceAsStream(DeviceProfiles.resource("h100-sxm"))
                .readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        int from = text.indexOf("communication:");
        int to = text.indexOf("collectives:");
        Path f = dir.resolve("quiet.yaml");
        Files.writeString(f, text.substring(0, from) + text.substring(to));
        DeviceProfile p = new DeviceProfileReader(new Diagnostics(f)).read(new SourceTreeReader().read(f), "")
                .orElseThrow();
        assertNull(p.commKernels());
    }
}

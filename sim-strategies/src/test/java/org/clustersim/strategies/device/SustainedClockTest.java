package org.clustersim.strategies.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.clustersim.core.input.Diagnostics;
import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFileException;
import org.clustersim.core.input.SourceTreeReader;
import org.clustersim.strategies.cost.Precision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code power} section of a device profile: read with its errors at file and line, and a GEMM
 * surface read at a lower sustained clock takes 1 / fraction longer where it is compute-bound and
 * hardly longer where it is memory-bound.
 */
class SustainedClockTest {
    static final String H100_POWER = "power: {limitW: 700, sustainedComputeFraction: 0.87}";

    @TempDir
    Path dir;

    @Test
    void theHopperAndBlackwellProfilesCarryTheMeasuredFractionAndTheOthersNone() {
        for (String name : List.of("h100-sxm", "h200-sxm")) {
            PowerLimit p = DeviceProfiles.bundled(name).power();
            assertEquals(700, p.limitW(), 0, name);
            assertEquals(0.87, p.sustainedComputeFraction(), 0, name);
        }
        for (String name : List.of("b200", "gb200", "b300", "gb300")) {
            assertEquals(0.87, DeviceProfiles.bundled(name).power().sustainedComputeFraction(), 0,
                    name + ": Hopper's measured fraction, carried over (uncertain)");
        }
        for (String name : List.of("a100-sxm-80gb", "tpu-v5p")) {
            assertEquals(PowerLimit.NONE, DeviceProfiles.bundled(name).power(), name + ": no section, no derating");
        }
    }

    @Test
    void aComputeBoundGemmTakesOneOverTheFractionLonger() {
        GemmSurface burst = Precision.BF16.gemm(DeviceProfiles.bundled("h100-sxm"));
        GemmSurface held = burst.atClock(0.87);
        for (double[] s : new double[][] {{8192, 8192, 8192}, {16384, 57344, 8192}, {4096, 4096, 4096}}) {
            double ratio = held.ns(s[0], s[1], s[2]) / burst.ns(s[0], s[1], s[2]);
            assertEquals(1 / 0.87, ratio, 1e-9, java.util.Arrays.toString(s));
        }
        // the sustained 8192^3 rate our H200 held for 45 s (671-678 TFLOP/s), from H100's burst surface
        double sustained = held.flopsPerSecond(8192, 8192, 8192) / 1e12;
        assertTrue(sustained > 660 && sustained < 700, "8192^3 sustained " + sustained);
        // grouped GEMMs of large groups stretch the same way
        assertEquals(1 / 0.87, held.groupedNs(8, 4096, 4096, 4096) / burst.groupedNs(8, 4096, 4096, 4096), 1e-9);
    }

    @Test
    void aMemoryBoundGemmHardlyChanges() {
        GemmSurface burst = Precision.BF16.gemm(DeviceProfiles.bundled("h100-sxm"));
        GemmSurface held = burst.atClock(0.87);
        // 16 rows against an 8192 x 8192 weight: streaming the weight dominates (at both clocks on
        // the HBM bound, which no clock moves)
        double ratio = held.ns(16, 8192, 8192) / burst.ns(16, 8192, 8192);
        assertTrue(ratio >= 1 && ratio < 1.02, "decode-like GEMM " + ratio);
        // the memory-bound floor of a grouped GEMM of tiny groups does not stretch
        double tiny = held.groupedNs(128, 1, 768, 2048) / burst.groupedNs(128, 1, 768, 2048);
        assertTrue(tiny >= 1 && tiny < 1.02, "128 experts of one token " + tiny);
    }

    @Test
    void theMeasuredClockIsTheSurfaceItselfAndAFractionOutsideTheRangeIsRefused() {
        GemmSurface burst = Precision.BF16.gemm(DeviceProfiles.bundled("h100-sxm"));
        assertSame(burst, burst.atClock(1));
        assertEquals(1, burst.clockFraction(), 0);
        assertThrows(IllegalArgumentException.class, () -> burst.atClock(0));
        assertThrows(IllegalArgumentException.class, () -> burst.atClock(1.1));
        assertThrows(IllegalArgumentException.class, () -> new PowerLimit(700, 1.2));
        assertThrows(IllegalArgumentException.class, () -> new PowerLimit(-1, 0.9));
    }

    @Test
    void aFractionOutsideItsRangeIsReportedWithItsLineAndField() throws IOException {
        Path f = profile(H100_POWER, "power: {limitW: 700, sustainedComputeFraction: 1.3}");
        List<InputError> errs = errors(f);
        assertEquals(1, errs.size(), errs.toString());
        assertEquals("power.sustainedComputeFraction", errs.get(0).path());
        assertEquals(lineOf(f, "sustainedComputeFraction: 1.3"), errs.get(0).location().line());
        assertTrue(errs.get(0).message().contains("from 0.1 to 1"), errs.get(0).message());
    }

    @Test
    void aMissingFractionAndAnUnknownFieldAreBothReported() throws IOException {
        Path f = profile(H100_POWER, "power: {limitW: 700, sustainedFraction: 0.87}");
        List<InputError> errs = errors(f);
        List<String> paths = errs.stream().map(InputError::path).toList();
        assertTrue(paths.contains("power.sustainedComputeFraction"), "missing: " + paths);
        assertTrue(paths.contains("power.sustainedFraction"), "unknown: " + paths);
        assertTrue(errs.stream().allMatch(e -> e.location().line() == lineOf(f, "sustainedFraction")), errs.toString());
        Path g = profile(H100_POWER, "power: {sustainedComputeFraction: 0.87}");
        InputError e = errors(g).get(0);
        assertEquals("power.limitW", e.path());
        assertTrue(e.message().startsWith("missing required value"), e.message());
    }

    @Test
    void aProfileWithoutTheSectionReadsAsMeasured() throws IOException {
        Path f = profile(H100_POWER + "\n", "");
        Diagnostics d = new Diagnostics(f);
        DeviceProfile p = new DeviceProfileReader(d).read(new SourceTreeReader().read(f), "").orElseThrow();
        d.throwIfAny();
        assertEquals(PowerLimit.NONE, p.power());
        DeviceProfile bundled = DeviceProfiles.bundled("h100-sxm");
        assertEquals(bundled.bf16Gemm(), p.bf16Gemm(), "the surfaces hold the measured burst rates either way");
    }

    private Path profile(String from, String to) throws IOException {
        String text = new String(DeviceProfile.class.getResourceAsStream(DeviceProfiles.resource("h100-sxm"))
                .readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(text.contains(from), from);
        Path f = dir.resolve("profile.yaml");
        Files.writeString(f, text.replace(from, to));
        return f;
    }

    private static List<InputError> errors(Path file) {
        Diagnostics d = new Diagnostics(file);
        new DeviceProfileReader(d).read(new SourceTreeReader().read(file), "");
        InputFileException e = assertThrows(InputFileException.class, d::throwIfAny);
        return e.errors();
    }

    private static int lineOf(Path f, String text) {
        try {
            List<String> lines = Files.readAllLines(f);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains(text)) {
                    return i + 1;
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError(text);
    }
}

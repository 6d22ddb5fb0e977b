package org.clustersim.study.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFileException;
import org.clustersim.strategies.training.ShardingOptions;
import org.clustersim.strategies.training.Zero3Impl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code parallelism.zero3Impl}, {@code reshardAfterForward} and {@code gradReduceDtype} as read from files. */
class Zero3ImplScenarioTest {
    @TempDir
    Path dir;

    private static String scenario(String parallelism) {
        return """
                cluster:
                  preset: dgx-h100
                  nodes: 1
                model:
                  preset: llama3-8b
                parallelism:
                %s
                training:
                  globalBatch: 16
                  seqLen: 1024
                """.formatted(parallelism.indent(2).stripTrailing());
    }

    private Scenario read(String parallelism) throws IOException {
        Path p = dir.resolve("s.yaml");
        Files.writeString(p, scenario(parallelism));
        return new ScenarioReader().read(p);
    }

    private InputError onlyError(String parallelism) throws IOException {
        Path p = dir.resolve("s.yaml");
        Files.writeString(p, scenario(parallelism));
        List<InputError> errors = assertThrows(InputFileException.class, () -> new ScenarioReader().read(p)).errors();
        assertEquals(1, errors.size(), () -> "expected one error, got " + errors);
        return errors.get(0);
    }

    @Test
    void zeroThreeDefaultsToMegatronFsdpAndEachImplementationIsRead() throws IOException {
        assertEquals(ShardingOptions.defaults(), read("dp: 8\nzero: 3").parallelism().layout().zero().options());
        assertEquals(Zero3Impl.MEGATRON_FSDP, ShardingOptions.defaults().impl());
        ShardingOptions fsdp2 = read("dp: 8\nzero: 3\nzero3Impl: fsdp2\nreshardAfterForward: false\n"
                + "gradReduceDtype: bf16").parallelism().layout().zero().options();
        assertEquals(new ShardingOptions(Zero3Impl.FSDP2, false, 2, ShardingOptions.DeepSpeedConfig.DEFAULTS), fsdp2);
        assertEquals(Zero3Impl.DEEPSPEED, read("dp: 8\nzero: 3\nzero3Impl: deepspeed").parallelism().layout().zero().options().impl());
        assertEquals(Zero3Impl.FSDP2, read("dp: 8\nzero: 3\nzero3Impl: fsdp2").trainingStep().sharding().impl());
    }

    @Test
    void anUnknownImplementationNamesTheKnownOnes() throws IOException {
        InputError e = onlyError("dp: 8\nzero: 3\nzero3Impl: fsdp3");
        assertEquals("parallelism.zero3Impl", e.path());
        assertTrue(e.message().contains("deepspeed") && e.message().contains("megatron-fsdp"), e.message());
        assertEquals(9, e.location().line());
    }

    @Test
    void theOptionsNeedZeroThree() throws IOException {
        assertEquals("parallelism.zero3Impl", onlyError("dp: 8\nzero: 1\nzero3Impl: fsdp2").path());
        assertEquals("parallelism.reshardAfterForward", onlyError("dp: 8\nreshardAfterForward: false").path());
        InputError e = onlyError("dp: 8\nzero: 2\ngradReduceDtype: fp32");
        assertEquals("parallelism.gradReduceDtype", e.path());
        assertTrue(e.message().contains("zero: 3"), e.message());
    }

    @Test
    void onlyFsdp2HasReshardAfterForward() throws IOException {
        InputError e = onlyError("dp: 8\nzero: 3\nzero3Impl: deepspeed\nreshardAfterForward: false");
        assertEquals("parallelism.reshardAfterForward", e.path());
        assertTrue(e.message().contains("only fsdp2"), e.message());
        assertEquals("parallelism.reshardAfterForward",
                onlyError("dp: 8\nzero: 3\nreshardAfterForward: false").path(), "megatron-fsdp, the default");
        // true is what every framework does, but it is still FSDP2's own option
        assertEquals(ShardingOptions.of(Zero3Impl.FSDP2),
                read("dp: 8\nzero: 3\nzero3Impl: fsdp2\nreshardAfterForward: true").parallelism().layout().zero().options());
    }

    @Test
    void deepSpeedRefusesPipelineParallelism() throws IOException {
        InputError e = onlyError("dp: 4\npp: 2\nzero: 3\nzero3Impl: deepspeed");
        assertEquals("parallelism.zero3Impl", e.path());
        assertTrue(e.message().contains("pipeline engine"), e.message());
    }
}

package org.clustersim.study.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.clustersim.core.input.InputError;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NcclTestsOutputTest {
    static final Path NVLS = GemmFitTest.FIXTURES.resolve("all_reduce_perf-8xh100-nvls.txt");

    @TempDir
    Path dir;

    private static NcclTestsOutput read(Path file, Optional<NcclOp> flag) {
        List<InputError> errors = new ArrayList<>();
        Optional<NcclTestsOutput> o = NcclTestsOutput.read(file, flag, errors);
        assertEquals(List.of(), errors);
        return o.orElseThrow();
    }

    private static List<String> errors(Path file, Optional<NcclOp> flag) {
        List<InputError> errors = new ArrayList<>();
        NcclTestsOutput.read(file, flag, errors).ifPresent(o -> CollectiveFit.fit(o, errors));
        return errors.stream().map(InputError::format).toList();
    }

    private Path variant(String name, String from, String to) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, Files.readString(NVLS).replace(from, to));
        return p;
    }

    @Test
    void readsThePublishedNvlsAllReduceAsNcclTestsPrintsIt() {
        NcclTestsOutput o = read(NVLS, Optional.empty());
        assertEquals(NcclOp.ALL_REDUCE, o.op());
        assertEquals("its header", o.opFrom());
        assertEquals(8, o.ranks());
        assertEquals(List.of("dgx-h100"), o.hosts());
        assertEquals("nvlink", o.medium());
        assertEquals(11, o.rows().size());
        assertEquals(new NcclTestsOutput.Row(18, 8, 13.67, 0, 0), o.rows().get(0));
        assertEquals(new NcclTestsOutput.Row(28, 8589934592L, 31307, 274.38, 480.16), o.rows().get(10));
    }

    @Test
    void theFitReproducesTheSmallMessageLatencyAndTheBusBandwidthPlateau() {
        CollectiveFit f = CollectiveFit.fit(read(NVLS, Optional.empty()), new ArrayList<>()).orElseThrow();
        // the table: 13.67 us at 8 B; busbw 480.16 GB/s at 8 GiB (NCCL's maintainers: NVLS peaks near 480)
        assertEquals(13.67, f.latencyUs(), 0);
        // 8 GiB x 1.75 / (31307 - 13.67 us) = 480.37 GB/s, rounded to four digits
        assertEquals(480.4, f.busBandwidthGBps(), 0);
        assertEquals(480.16, f.busBandwidthGBps(), 0.005 * 480.16, "within 0.5% of the published plateau");
        NcclTestsOutput.Row small = f.rowsBySize().get(0);
        NcclTestsOutput.Row large = f.rowsBySize().get(10);
        assertEquals(0, f.residual(small), 1e-3, "both ends exact");
        assertEquals(0, f.residual(large), 1e-3);
        // the two-constant line is faster than NCCL in the middle (protocol and channel ramp-up):
        // at most 47% at 4 MiB, and every residual is negative or zero
        for (NcclTestsOutput.Row r : f.rowsBySize()) {
            assertTrue(f.residual(r) <= 1e-3 && f.residual(r) > -0.47, r.bytes() + " B: " + f.residual(r));
        }
    }

    @Test
    void theOperationComesFromTheHeaderTheFlagTheFileNameOrTheColumns() throws IOException {
        String header = "# Collective test starting: all_reduce_perf\n";
        Path named = variant("allreduce-8xh100.log", header, "");
        assertEquals("its file name", read(named, Optional.empty()).opFrom());
        Path anonymous = variant("run3.log", header, "");
        NcclTestsOutput inferred = read(anonymous, Optional.empty());
        assertEquals(NcclOp.ALL_REDUCE, inferred.op(), "redop sum, root -1 and busbw = 1.75 algbw: only all-reduce");
        assertEquals("its redop, root and busbw/algbw columns", inferred.opFrom());
        assertEquals("--nccl-op", read(anonymous, Optional.of(NcclOp.ALL_REDUCE)).opFrom());
        assertEquals(List.of(NVLS + ":2: program: found 'all_reduce_perf', but --nccl-op says all_gather, expected "
                + "the two to agree (drop --nccl-op)"), errors(NVLS, Optional.of(NcclOp.ALL_GATHER)));
        // a wrong operation is caught by the columns nccl-tests computed with the right one
        List<String> wrong = errors(anonymous, Optional.of(NcclOp.BROADCAST));
        assertEquals(3, wrong.size(), wrong.toString());
        assertTrue(wrong.get(0).startsWith(anonymous + ":17: redop: found 'sum', expected none for broadcast"),
                wrong.get(0));
        assertTrue(wrong.get(1).startsWith(anonymous + ":17: root: found -1, expected a root rank for broadcast"),
                wrong.get(1));
        assertTrue(wrong.get(2).startsWith(anonymous + ":18: busbw: found 5.87 with algbw 3.35 (busbw/algbw 1.7522), "
                + "expected busbw/algbw 1.0000, the bus factor of broadcast over 8 ranks"), wrong.get(2));
    }

    @Test
    void programAndFileNamesName() {
        assertEquals(Optional.of(NcclOp.ALL_REDUCE), NcclOp.ofProgram("all_reduce_perf_mpi"));
        assertEquals(Optional.empty(), NcclOp.ofProgram("alltoallv_perf"));
        assertEquals(Optional.of(NcclOp.REDUCE_SCATTER), NcclOp.inName("reduce_scatter_perf.txt"));
        assertEquals(Optional.of(NcclOp.ALL_GATHER), NcclOp.inName("AllGather-16xh100.log"));
        assertEquals(Optional.of(NcclOp.REDUCE), NcclOp.inName("reduce_perf.out"));
        assertEquals(Optional.of(NcclOp.ALLTOALL), NcclOp.inName("alltoall_perf_2nodes.txt"));
        assertEquals(Optional.empty(), NcclOp.inName("all_reduce_vs_all_gather.txt"), "two names: ambiguous");
        assertEquals(Optional.empty(), NcclOp.inName("run3.log"));
    }

    @Test
    void olderLayoutsReadTheSame() throws IOException {
        // nccl-tests before 2.17: no version or program lines, Rank lines without Group and a [0x18] bus id,
        // an "error" column; the columns are found by name
        String text = Files.readString(NVLS).replace("# nccl-tests version 2.19.6 nccl-headers=22703 "
                + "nccl-library=22703\n", "").replace("# Collective test starting: all_reduce_perf\n", "")
                .replaceAll("#  Rank (..) Group  0 Pid   4242 on   dgx-h100 device (..) \\[0000:(..):00\\]",
                        "#   Rank $1 Pid   4242 on   dgx-h100 device $2 [0x$3]")
                .replace("#wrong", " error");
        Path old = dir.resolve("all_reduce_perf.txt");
        Files.writeString(old, text);
        NcclTestsOutput o = read(old, Optional.empty());
        assertEquals(8, o.ranks());
        assertEquals(read(NVLS, Optional.empty()).rows().size(), o.rows().size());
    }

    @Test
    void ranksOnSeveralHostsAreOnTheNetwork() throws IOException {
        Path two = variant("two.txt", "#  Rank  7 Group  0 Pid   4242 on   dgx-h100",
                "#  Rank  7 Group  0 Pid   4243 on   dgx-h101");
        NcclTestsOutput o = read(two, Optional.empty());
        assertEquals(List.of("dgx-h100", "dgx-h101"), o.hosts());
        assertEquals("network", o.medium());
    }

    @Test
    void malformedFilesAreRejectedLineByLine() throws IOException {
        assertEquals(List.of(dir.resolve("a.txt") + ":20: time: found 'abc', expected a number greater than 0 (the "
                        + "out-of-place time in microseconds)"),
                errors(variant("a.txt", "    27.37   38.31", "      abc   38.31"), Optional.empty()));
        assertEquals(List.of(dir.resolve("b.txt") + ":21: found 'oops', expected a result row (size count type redop "
                        + "root time algbw busbw ...), a '#' comment or a blank line"),
                errors(variant("b.txt", "     4194304       1048576", "oops\n     4194304       1048576"),
                        Optional.empty()));
        assertEquals(List.of(dir.resolve("c.txt") + ": Rank: found no '#  Rank N Group G Pid P on HOST device D' "
                        + "lines, expected the device list nccl-tests prints before the results (they give the ranks "
                        + "and hosts)"),
                errors(variant("c.txt", "#  Rank", "# Ronk"), Optional.empty()));
        assertEquals(List.of(dir.resolve("d.txt") + ":20: size: found 65536 bytes again (line 19), expected one row "
                        + "per size (run one data type, one reduction operator and one root: -d, -o, -r)"),
                errors(variant("d.txt", "     1048576        262144", "       65536        262144"), Optional.empty()));
        assertEquals(List.of(dir.resolve("e.txt") + ":16: cputime: found host CPU times (nccl-tests -C 1), expected "
                        + "GPU times (run without -C)"),
                errors(variant("e.txt", "     time   algbw", "  cputime   algbw"), Optional.empty()));
    }

    @Test
    void sizesThatMissARegimeAreRejected() throws IOException {
        // only the small sizes: no message where latency is under a tenth of the time
        String text = Files.readString(NVLS);
        int cut = text.indexOf("    16777216");
        Path small = dir.resolve("small_all_reduce.txt");
        Files.writeString(small, text.substring(0, cut) + text.substring(text.indexOf("# Out of bounds")));
        List<String> e = errors(small, Optional.empty());
        assertEquals(1, e.size(), e.toString());
        assertTrue(e.get(0).startsWith(small + ":21: size: found at most 4194304 bytes in 54.19 us against the 13.67 "
                + "us of the fastest message"), e.get(0));
        // only the large sizes: the fastest message is not latency-bound
        Path large = dir.resolve("large_all_reduce.txt");
        int from = text.indexOf("           8             2");
        Files.writeString(large, text.substring(0, from) + text.substring(text.indexOf("   134217728")));
        e = errors(large, Optional.empty());
        assertEquals(1, e.size(), e.toString());
        assertTrue(e.get(0).startsWith(large + ":18: size: found the shortest time, 586.4 us, at 134217728 bytes"),
                e.get(0));
    }
}

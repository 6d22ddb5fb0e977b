package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code clustersim} launcher's choice of JVM and its ahead-of-time cache, run from a copy in
 * a scratch repository (a jar newer than every source, so nothing is built) with a fake JDK 26 as
 * JAVA_HOME and a fake {@code java} on PATH: both only record their arguments, and the JDK 26
 * writes the cache file it is asked for and, asked to run {@code scripts/ModernClassFiles.java},
 * copies the jar (the rewritten copy the cache is made for). Needs bash (skipped without it).
 */
class LauncherTest {
    private static final String FLAGS = "-XX:+UseSerialGC -XX:PretenureSizeThreshold=1m -XX:InitialRAMPercentage=5";

    @TempDir
    Path dir;
    private Path repo;
    private Path jar;
    private Path calls;
    private Path jdk26;
    private Path pathJava;

    @BeforeEach
    void fakeRepositoryAndJdks() throws IOException {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "the launcher is a bash script");
        repo = Files.createDirectories(dir.resolve("repo"));
        Path launcher = Path.of("..", "clustersim");
        Files.copy(launcher, repo.resolve("clustersim"));
        Files.createDirectories(repo.resolve("scenarios"));
        Files.createDirectories(repo.resolve("scripts"));
        Files.writeString(repo.resolve("scripts/ModernClassFiles.java"), "class ModernClassFiles {}");
        jar = Files.createDirectories(repo.resolve("sim-cli/target")).resolve("clustersim.jar");
        Files.writeString(jar, "jar");
        calls = dir.resolve("calls.txt");
        jdk26 = Files.createDirectories(dir.resolve("jdk-26/bin")).getParent();
        Files.writeString(jdk26.resolve("release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"26.0.1\"\n");
        script(jdk26.resolve("bin/java"), """
                #!/bin/sh
                echo "jdk26 $*" >> "$CALLS"
                case "$2" in
                  *ModernClassFiles.java) [ -n "${FAIL_REWRITE:-}" ] && exit 1; cp "$3" "$4"; exit 0 ;;
                esac
                for a in "$@"; do
                  case "$a" in
                    -XX:AOTCacheOutput=*) [ -n "${FAIL_TRAINING:-}" ] && exit 3; echo cache > "${a#*=}" ;;
                  esac
                done
                exit 0
                """);
        pathJava = Files.createDirectories(dir.resolve("path-bin"));
        script(pathJava.resolve("java"), "#!/bin/sh\necho \"path-java $*\" >> \"$CALLS\"\n");
    }

    private static void script(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** What one launcher run did: its exit code, its stderr lines, the fake JVMs' calls. */
    private record Launch(int code, List<String> stderr, List<String> calls) {
    }

    private Launch launch(Map<String, String> env) throws IOException, InterruptedException {
        Files.deleteIfExists(calls);
        ProcessBuilder pb = new ProcessBuilder("/bin/bash", repo.resolve("clustersim").toString(), "run", "x.yaml");
        pb.environment().clear();
        pb.environment().put("PATH", pathJava + ":/usr/bin:/bin");
        pb.environment().put("HOME", dir.toString());
        pb.environment().put("CALLS", calls.toString());
        pb.environment().put("JAVA_HOME", jdk26.toString());
        pb.environment().putAll(env);
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Path err = dir.resolve("stderr.txt");
        pb.redirectError(err.toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher finished");
        List<String> recorded = Files.exists(calls) ? Files.readAllLines(calls) : List.of();
        return new Launch(p.exitValue(), Files.readAllLines(err, StandardCharsets.UTF_8), recorded);
    }

    private List<String> aotFolder() throws IOException {
        Path aot = repo.resolve("sim-cli/target/aot");
        if (!Files.isDirectory(aot)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(aot)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    /** A run with the cache {@code cacheName} and the rewritten copy of the jar made with it. */
    private String runCall(String cacheName) {
        return "jdk26 " + FLAGS + " -XX:AOTCache=" + aot(cacheName) + " -Xlog:aot*=off -jar "
                + aot(cacheName.replace(".aot", ".jar")) + " run x.yaml";
    }

    private Path aot(String name) {
        return repo.resolve("sim-cli/target/aot/" + name);
    }

    /** The call that rewrites the jar's old class files into the copy beside {@code cacheName}. */
    private String rewriteCall(String cacheName) {
        return "jdk26 -XX:TieredStopAtLevel=1 " + repo.resolve("scripts/ModernClassFiles.java") + " " + jar + " "
                + aot(cacheName.replace(".aot", ".jar"));
    }

    @Test
    void firstRunTrainsTheCacheOnceThenEveryRunUsesIt() throws Exception {
        Launch first = launch(Map.of());
        assertEquals(0, first.code());
        assertEquals(3, first.calls().size(), first.calls().toString());
        List<String> cache = aotFolder();
        assertEquals(2, cache.size(), "only the finished cache and its jar are left (no temporary file, no lock): "
                + cache);
        assertTrue(cache.get(0).matches("clustersim-[0-9]+\\.aot"), cache.get(0));
        assertEquals(cache.get(0).replace(".aot", ".jar"), cache.get(1));
        assertEquals(Files.getLastModifiedTime(jar), Files.getLastModifiedTime(aot(cache.get(1))),
                "the copy carries the jar's time, which the cache records");
        assertEquals(rewriteCall(cache.get(0)), first.calls().get(0));
        String training = first.calls().get(1);
        assertTrue(training.startsWith("jdk26 " + FLAGS + " -XX:AOTCacheOutput=" + repo.resolve("sim-cli/target/aot")),
                training);
        assertTrue(training.contains(" -cp " + aot(cache.get(1)) + " org.clustersim.cli.StartupTraining "
                + repo.resolve("scenarios") + " "), training);
        assertEquals(runCall(cache.get(0)), first.calls().get(2));
        assertEquals(1, first.stderr().size(), first.stderr().toString());
        assertTrue(first.stderr().get(0).startsWith("clustersim: building the JDK 26 start-up cache"), first.stderr().get(0));

        Launch second = launch(Map.of("CLUSTERSIM_JAVA_OPTS", "-Xmx1g"));
        assertEquals(List.of(runCall(cache.get(0)).replace(" -jar ", " -Xmx1g -jar ")), second.calls());
        assertEquals(List.of(), second.stderr());
    }

    @Test
    void aNewerJarRebuildsTheCache() throws Exception {
        launch(Map.of());
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
        Launch after = launch(Map.of());
        assertEquals(3, after.calls().size(), after.calls().toString());
        assertTrue(after.calls().get(0).contains("ModernClassFiles.java"), after.calls().get(0));
        assertTrue(after.calls().get(1).contains("-XX:AOTCacheOutput="), after.calls().get(1));
        assertTrue(after.calls().get(2).contains("-XX:AOTCache="), after.calls().get(2));
        // The jar is dated a minute ahead: the new cache is still its own, not built again.
        assertEquals(List.of(runCall(aotFolder().get(0))), launch(Map.of()).calls());
    }

    @Test
    void otherLauncherFlagsBuildAnotherCache() throws Exception {
        launch(Map.of());
        String before = aotFolder().get(0);
        Path launcher = repo.resolve("clustersim");
        String text = Files.readString(launcher);
        assertTrue(text.contains(FLAGS), "the launcher passes " + FLAGS);
        Files.writeString(launcher, text.replace(FLAGS, FLAGS + " -XX:+AlwaysPreTouch"));
        Launch after = launch(Map.of());
        assertEquals(3, after.calls().size(), after.calls().toString());
        assertTrue(after.calls().get(1).startsWith("jdk26 " + FLAGS + " -XX:+AlwaysPreTouch -XX:AOTCacheOutput="),
                after.calls().get(1));
        List<String> caches = aotFolder().stream().filter(f -> f.endsWith(".aot")).toList();
        assertEquals(2, caches.size(), aotFolder().toString());
        assertTrue(caches.contains(before), caches.toString());
        String made = caches.get(caches.get(0).equals(before) ? 1 : 0);
        assertTrue(after.calls().get(2).contains("-XX:AOTCache=" + aot(made) + " "), after.calls().get(2));
    }

    @Test
    void optingOutRunsTheJavaOnPathAsBefore() throws Exception {
        Launch off = launch(Map.of("CLUSTERSIM_AOT", "0", "CLUSTERSIM_JAVA_OPTS", "-Xmx1g"));
        assertEquals(List.of("path-java " + FLAGS + " -Xmx1g -jar " + jar + " run x.yaml"), off.calls());
        assertEquals(List.of(), off.stderr());
        assertEquals(List.of(), aotFolder());
    }

    @Test
    void aFailedTrainingRunsWithoutTheCacheAndIsNotRetriedForTheSameJar() throws Exception {
        Launch failed = launch(Map.of("FAIL_TRAINING", "1"));
        assertEquals(0, failed.code());
        assertEquals(3, failed.calls().size(), failed.calls().toString());
        assertEquals("jdk26 " + FLAGS + " -Xlog:aot*=off -jar " + jar + " run x.yaml", failed.calls().get(2));
        assertTrue(failed.stderr().get(1).startsWith("clustersim: could not build the start-up cache"),
                failed.stderr().toString());
        List<String> left = new ArrayList<>(aotFolder());
        assertEquals(1, left.size(), left.toString());
        assertTrue(left.get(0).endsWith(".aot.failed"), left.get(0));

        Launch again = launch(Map.of("FAIL_TRAINING", "1"));
        assertEquals(List.of("jdk26 " + FLAGS + " -Xlog:aot*=off -jar " + jar + " run x.yaml"), again.calls());
        assertEquals(List.of(), again.stderr());
    }

    @Test
    void aFailedRewriteTrainsAndRunsTheJarItself() throws Exception {
        Launch first = launch(Map.of("FAIL_REWRITE", "1"));
        assertEquals(0, first.code());
        assertEquals(3, first.calls().size(), first.calls().toString());
        assertTrue(first.calls().get(1).contains(" -cp " + jar + " org.clustersim.cli.StartupTraining "),
                first.calls().get(1));
        List<String> cache = aotFolder();
        assertEquals(1, cache.size(), "no copy is left: " + cache);
        String withJar = "jdk26 " + FLAGS + " -XX:AOTCache=" + aot(cache.get(0)) + " -Xlog:aot*=off -jar " + jar
                + " run x.yaml";
        assertEquals(withJar, first.calls().get(2));
        assertEquals(List.of(withJar), launch(Map.of()).calls());
    }

    @Test
    void aNewerToolInScriptsIsNoReasonToBuildTheJar() throws Exception {
        launch(Map.of());
        Files.setLastModifiedTime(repo.resolve("scripts/ModernClassFiles.java"),
                FileTime.fromMillis(System.currentTimeMillis() + 60_000));
        Launch after = launch(Map.of());
        assertEquals(List.of(), after.stderr(), "no build of the jar: the tool is not part of it");
        assertEquals(List.of(runCall(aotFolder().get(0))), after.calls());
    }

    @Test
    void whileAnotherRunBuildsTheCacheThisOneRunsWithoutIt() throws Exception {
        launch(Map.of());
        String cache = aotFolder().get(0);
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
        Files.createDirectory(repo.resolve("sim-cli/target/aot/" + cache + ".lock"));
        Launch meanwhile = launch(Map.of());
        assertEquals(List.of("jdk26 " + FLAGS + " -Xlog:aot*=off -jar " + jar + " run x.yaml"), meanwhile.calls());
        assertEquals(List.of(), meanwhile.stderr());
    }
}

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.stream.Stream;

/**
 * Copies a jar, rewriting its class files older than Java 6 (version 50) as Java 8 class files
 * (version 52) with the stack maps the newer verifier reads; every other entry is copied as it
 * is. The launcher's JDK 25 ahead-of-time cache leaves out a Java 5 class that was linked in its
 * training run, and every class linked against one ("Old class has been linked"): picocli's 176
 * classes that every command loads, and the command classes that implement its interfaces, were
 * read, verified by the old type-inferring verifier and linked at each start. The rewrite changes
 * no instruction: the same code, in a form the cache can hold. A class the rewrite cannot handle
 * (jsr/ret subroutines, a type it cannot resolve) or whose rewrite the class-file API's verifier
 * refuses is copied unchanged. Needs JDK 24 or newer (java.lang.classfile); run as a source file:
 *
 * <pre>java scripts/ModernClassFiles.java IN.jar OUT.jar</pre>
 *
 * Exit code 0 and OUT written, or 1 with a message and no OUT.
 */
public final class ModernClassFiles {
    private static final int OLDEST_KEPT = 50;
    private static final int WRITTEN = 52;

    private ModernClassFiles() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: java ModernClassFiles.java IN.jar OUT.jar");
            System.exit(1);
        }
        Path in = Path.of(args[0]);
        Path out = Path.of(args[1]);
        try {
            int[] counts = rewrite(in, out);
            System.err.println("rewrote " + counts[0] + " class files, kept " + counts[1] + " that could not be");
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(out);
            System.err.println("cannot rewrite " + in + ": " + e);
            System.exit(1);
        }
    }

    /** Writes {@code out}; returns the class files rewritten and those left as they were. */
    static int[] rewrite(Path in, Path out) throws IOException {
        int rewritten = 0;
        int kept = 0;
        // a copy, changed in place: the other entries keep their compressed bytes
        Files.copy(in, out, StandardCopyOption.REPLACE_EXISTING);
        // stack maps name the common supertype where branches meet: the JDK's and the jar's classes
        try (URLClassLoader jar = new URLClassLoader(new URL[] {in.toUri().toURL()}, null);
             FileSystem zip = FileSystems.newFileSystem(out);
             Stream<Path> entries = Files.walk(zip.getPath("/"))) {
            ClassFile files = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver
                    .defaultResolver().orElse(ClassHierarchyResolver.ofResourceParsing(jar))));
            for (Path entry : entries.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
                byte[] bytes = Files.readAllBytes(entry);
                if (major(bytes) >= OLDEST_KEPT) {
                    continue;
                }
                byte[] newer = newer(files, bytes);
                if (newer == null) {
                    kept++;
                    continue;
                }
                FileTime time = Files.getLastModifiedTime(entry);
                Files.write(entry, newer);
                Files.setLastModifiedTime(entry, time);
                rewritten++;
            }
        }
        return new int[] {rewritten, kept};
    }

    private static int major(byte[] bytes) {
        return bytes.length < 8 ? Integer.MAX_VALUE : ((bytes[6] & 0xff) << 8) | (bytes[7] & 0xff);
    }

    /** The class rewritten as version 52 with stack maps, or null if it cannot be. */
    private static byte[] newer(ClassFile files, byte[] bytes) {
        try {
            ClassModel model = files.parse(bytes);
            // rebuilding every method body makes the writer compute its stack maps
            byte[] newer = files.transformClass(model, ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
                    .andThen((builder, element) -> {
                        if (element instanceof ClassFileVersion) {
                            builder.withVersion(WRITTEN, 0);
                        } else {
                            builder.with(element);
                        }
                    }));
            // a class the JVM's verifier would refuse stays as it was (checked here, not when a
            // command first loads it)
            return files.verify(newer).isEmpty() ? newer : null;
        } catch (IllegalArgumentException | IllegalStateException | UnsupportedOperationException e) {
            return null;
        }
    }
}

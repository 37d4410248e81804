package org.troika.ompijava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The drop-in's API against Open MPI 5.0.7's {@code mpi.jar}, as {@code javap} shows both: every public class, and
 * every public member and every protected member of a class user code can extend, is there with the same shape
 * (static or not, field or method, return type and parameters), so a class compiled against Open MPI's jar links
 * against this one. Throws clauses are left out (the JVM does not check them); the only other differences are the
 * ones listed here, each documented in docs/ompi-java.md.
 */
class ApiCompatibilityTest {
    /** Members the drop-in adds to Open MPI's API. */
    static final Set<String> ADDITIONS = Set.of(
            "mpi.Comm: public mpi.Request iSend(java.lang.Object, int, mpi.Datatype, int, int)",
            "mpi.Comm: public mpi.Request ibSend(java.lang.Object, int, mpi.Datatype, int, int)",
            "mpi.Comm: public mpi.Request isSend(java.lang.Object, int, mpi.Datatype, int, int)",
            "mpi.Comm: public mpi.Request irSend(java.lang.Object, int, mpi.Datatype, int, int)",
            "mpi.Comm: public mpi.Request iRecv(java.lang.Object, int, mpi.Datatype, int, int)",
            "mpi.Datatype: public static mpi.Datatype createIndexedBlock(int, int[], mpi.Datatype)");
    /** Overrides of {@code Object}'s methods: every class has them, so they add nothing a caller links against. */
    static final Set<String> OBJECT_METHODS = Set.of("public int hashCode()", "public java.lang.String toString()");
    /** Class declarations that differ on purpose. */
    static final Set<String> CHANGED_CLASSES = Set.of(
            "public final class mpi.MPIException extends java.lang.RuntimeException");

    private static final Pattern CLASS_LINE = Pattern.compile("^(public |protected )?.*(class|interface) (\\S+).*\\{$");

    @Test
    void everyPublicClassAndMemberOfOpenMpisJarIsHere() throws Exception {
        Programs.requireReference();
        Path dropIn = Path.of("target", "classes").toAbsolutePath();
        List<String> classes = new ArrayList<>();
        try (JarFile jar = new JarFile(Programs.REFERENCE_JAR.toFile())) {
            jar.stream().map(e -> e.getName()).filter(n -> n.startsWith("mpi/") && n.endsWith(".class"))
                    .map(n -> n.substring(0, n.length() - 6).replace('/', '.')).sorted().forEach(classes::add);
        }
        Map<String, ApiClass> theirs = javap(Programs.REFERENCE_JAR.toString(), classes);
        Map<String, ApiClass> ours = javap(dropIn.toString(), classes);
        int publicClasses = 0;
        int members = 0;
        int present = 0;
        List<String> missing = new ArrayList<>();
        for (ApiClass c : theirs.values()) {
            if (!c.header.startsWith("public")) {
                continue; // package-private helpers (Constant, Struct$Field) are no API
            }
            publicClasses++;
            ApiClass mine = ours.get(c.name);
            if (mine == null) {
                missing.add(c.name + " (class)");
                continue;
            }
            if (!mine.header.equals(c.header)) {
                assertTrue(CHANGED_CLASSES.contains(mine.header), c.name + " declared as\n  " + mine.header
                        + "\ninstead of\n  " + c.header);
            }
            for (String m : c.members) {
                if (m.startsWith("protected") && c.header.contains(" final ")) {
                    continue; // protected in a final class: reachable only from package mpi
                }
                members++;
                if (mine.members.contains(m)) {
                    present++;
                } else {
                    missing.add(c.name + ": " + m);
                }
            }
            for (String m : mine.members) {
                if (m.startsWith("public") && !c.members.contains(m) && !OBJECT_METHODS.contains(m)) {
                    assertTrue(ADDITIONS.contains(c.name + ": " + m), "an undocumented addition: " + c.name + ": " + m);
                }
            }
        }
        System.out.println("Open MPI 5.0.7's API: " + publicClasses + " public classes, " + members
                + " public members (and protected ones of extensible classes); the drop-in has " + present);
        assertEquals(List.of(), missing, "missing from the drop-in");
        assertEquals(members, present);
        assertTrue(publicClasses >= 40 && members >= 500, publicClasses + " classes, " + members + " members");
    }

    /** A class as javap shows it: its declaration and its members, normalized. */
    record ApiClass(String name, String header, Set<String> members) {}

    static Map<String, ApiClass> javap(String classPath, List<String> classes) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Programs.JDK22.resolve("bin/javap").toString(), "-protected",
                "-cp", classPath));
        cmd.addAll(classes);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        Map<String, ApiClass> result = new LinkedHashMap<>();
        ApiClass current = null;
        for (String line : out.lines().toList()) {
            Matcher m = CLASS_LINE.matcher(line);
            if (m.matches()) {
                current = new ApiClass(m.group(3), normalize(line.substring(0, line.length() - 1)), new TreeSet<>());
                result.put(current.name, current);
            } else if (current != null && line.startsWith("  ") && line.endsWith(";")) {
                String member = normalize(line.strip());
                if (!member.startsWith("static {}")) {
                    current.members.add(member);
                }
            }
        }
        return result;
    }

    /** Drops what does not affect linking: throws clauses, native, synchronized, final on members. */
    static String normalize(String s) {
        String t = s.replaceAll(" throws [^;{]*", "").replace(";", "").strip();
        t = t.replace("native ", "").replace("synchronized ", "");
        if (!t.contains(" class ") && !t.contains(" interface ")) {
            t = t.replace("final ", "");
        }
        return t.replaceAll("\\s+", " ").strip();
    }
}

package org.troika.launcher.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/troika-rankenv} leaves Open MPI's cm PML out where the host has no PSM/PSM2/OFI hardware and nobody chose
 * the PML (issue 14: cm's MTL probes cost ~200 ms of every rank's MPI_Init with Debian's Open MPI 4.1). Run with
 * {@code sh} and recorded environments; the parameter files are the test's own ({@code $HOME/.openmpi/mca-params.conf}
 * is read first, {@code $OPAL_PREFIX/etc/openmpi-mca-params.conf} next).
 */
class RankEnvPmlScriptTest {
    @TempDir
    Path home;
    @TempDir
    Path prefix;

    @BeforeEach
    void noFabricHere() {
        // the rule only applies without such hardware; a machine with it would (rightly) keep cm
        for (String d : new String[] {"/sys/class/infiniband", "/dev/hfi1_0", "/dev/ipath", "/dev/cxi0"}) {
            assumeTrue(!Files.exists(Path.of(d)) || isEmptyDir(Path.of(d)), "this machine has " + d
                    + ": troika-rankenv keeps Open MPI's cm PML there, so the no-hardware cases cannot run");
        }
    }

    private static boolean isEmptyDir(Path d) {
        try (var s = Files.list(d)) {
            return s.findAny().isEmpty();
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private Map<String, String> openMpiRank(String... more) {
        Map<String, String> env = new HashMap<>(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "1",
                "HOME", home.toString(), "OPAL_PREFIX", prefix.toString()));
        for (int i = 0; i < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    private static String pml(Map<String, String> env) throws Exception {
        RankEnvScriptTest.Result r = RankEnvScriptTest.run(env, "sh", "-c", "echo \"pml=${OMPI_MCA_pml-<unset>}\"");
        assertEquals(0, r.exit(), r.err());
        return r.vars().get("pml");
    }

    private void userFile(String line) throws Exception {
        Files.createDirectories(home.resolve(".openmpi"));
        Files.writeString(home.resolve(".openmpi/mca-params.conf"), "# a comment\n" + line + "\n");
    }

    private void systemFile(String line) throws Exception {
        Files.createDirectories(prefix.resolve("etc"));
        Files.writeString(prefix.resolve("etc/openmpi-mca-params.conf"), line + "\n");
    }

    @Test
    void aSystemExclusionListKeepsItsEntriesAndGainsCm() throws Exception {
        systemFile("pml = ^ucx");
        assertEquals("^ucx,cm", pml(openMpiRank()));
    }

    @Test
    void withoutAnyPmlSettingCmAloneIsLeftOut() throws Exception {
        systemFile("btl = ^openib");
        userFile("mtl = ^ofi");
        // the machine's own /etc/openmpi file is read only when the earlier ones say nothing about the pml
        String got = pml(openMpiRank());
        assertFalse(got.equals("<unset>"), got);
        assertEquals("cm", got.substring(got.lastIndexOf(got.contains(",") ? ',' : '^') + 1), got);
    }

    @Test
    void theUsersFileWinsOverTheSystemsAndAnInclusionListIsSomebodysChoice() throws Exception {
        systemFile("pml = ^ucx");
        userFile("pml = ucx   # UCX over TCP on purpose");
        assertEquals("<unset>", pml(openMpiRank()));
        userFile("pml=^ucx,cm");
        assertEquals("<unset>", pml(openMpiRank()), "cm is excluded already: nothing to add");
    }

    @Test
    void anExplicitChoiceOrTheSwitchOrAnotherMpiLeavesThePmlAlone() throws Exception {
        systemFile("pml = ^ucx");
        assertEquals("ob1", pml(openMpiRank("OMPI_MCA_pml", "ob1")));
        assertEquals("", pml(openMpiRank("OMPI_MCA_pml", "")), "set but empty is a choice too");
        assertEquals("<unset>", pml(openMpiRank("TROIKA_OMPI_PML_AUTO", "0")));
        assertEquals("<unset>", pml(openMpiRank("OMPI_MCA_mca_base_param_files", "/somewhere/else.conf")));
        Map<String, String> hydra = new HashMap<>(Map.of("PMI_RANK", "0", "PMI_SIZE", "1", "HOME", home.toString(),
                "OPAL_PREFIX", prefix.toString()));
        assertEquals("<unset>", pml(hydra), "MPICH ranks get no Open MPI parameter");
    }
}

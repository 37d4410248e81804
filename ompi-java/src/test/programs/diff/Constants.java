package diff;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Comparator;
import mpi.Comm;
import mpi.MPI;
import mpi.Win;

/** Every int constant of {@code MPI}, {@code Comm} and {@code Win}, and the environment queries. */
final class Constants {
    private Constants() {}

    static void run() throws Exception {
        Out.section("constants");
        Field[] fields = MPI.class.getFields();
        Arrays.sort(fields, Comparator.comparing(Field::getName));
        for (Field f : fields) {
            if (f.getType() == int.class && Modifier.isStatic(f.getModifiers())) {
                Out.p(f.getName() + " = " + f.getInt(null));
            }
        }
        Out.p("Comm.TYPE_SHARED = " + Comm.TYPE_SHARED);
        Out.p("Win.WIN_NULL = " + Win.WIN_NULL + " FLAVOR_PRIVATE = " + Win.FLAVOR_PRIVATE + " FLAVOR_SHARED = "
                + Win.FLAVOR_SHARED);
        Out.section("environment");
        Out.p("initialized " + MPI.isInitialized() + " finalized " + MPI.isFinalized());
        Out.p("queryThread " + MPI.queryThread() + " isThreadMain " + MPI.isThreadMain());
        double t0 = MPI.wtime();
        Out.p("wtick positive " + (MPI.wtick() > 0) + " wtime non-negative " + (t0 >= 0) + " and not going back "
                + (MPI.wtime() >= t0));
        Out.p("processor name non-empty " + !MPI.getProcessorName().isEmpty());
        Out.p("library version non-empty " + !MPI.getLibVersion().isEmpty());
        Out.p("version at least 3 " + (MPI.getVersion().getVersion() >= 3));
        Out.p("world size " + MPI.COMM_WORLD.getSize() + " self size " + MPI.COMM_SELF.getSize() + " self rank "
                + MPI.COMM_SELF.getRank());
        Out.p("world name " + MPI.COMM_WORLD.getName() + " self name " + MPI.COMM_SELF.getName());
        Out.p("world topology " + MPI.COMM_WORLD.getTopology() + " inter " + MPI.COMM_WORLD.isInter());
        Out.p("tag_ub at least 32767 " + ((Integer) MPI.COMM_WORLD.getAttr(MPI.TAG_UB) >= 32767));
        Out.p("host " + MPI.COMM_WORLD.getAttr(MPI.HOST));
        Out.p("wtime_is_global " + MPI.COMM_WORLD.getAttr(MPI.WTIME_IS_GLOBAL));
        Out.p("request null " + MPI.REQUEST_NULL.isNull() + " info null " + MPI.INFO_NULL.isNull()
                + " group empty size " + MPI.GROUP_EMPTY.getSize() + " rank " + MPI.GROUP_EMPTY.getRank());
        Out.p("ops commutative " + MPI.SUM.isCommutative() + " null " + MPI.SUM.isNull());
        Out.p("datatype null " + MPI.DATATYPE_NULL.isNull() + " int null " + MPI.INT.isNull());
        int[] buf = {1};
        MPI.pControl(1, null);
        byte[] bsend = new byte[1024 + MPI.BSEND_OVERHEAD];
        MPI.attachBuffer(bsend);
        Out.p("detach returns the attached array " + (MPI.detachBuffer() == bsend) + " " + buf[0]);
    }
}

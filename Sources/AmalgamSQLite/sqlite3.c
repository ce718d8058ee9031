// Compiles the vendored SQLite amalgamation (kept byte-for-byte in Vendor/SQLite) with the options that
// Package.swift derives from the enabled traits. Only choices that traits cannot express live here.

// Threading mode. Traits are additive, so both THREADSAFE_0 and THREADSAFE_1 may be on (for example with
// --enable-all-traits); serialized mode, the safest, wins. Neither trait means multi-thread mode, in which
// the Swift layer confines each connection to one thread at a time.
#if defined(AMALGAM_THREADSAFE_1)
#define SQLITE_THREADSAFE 1
#elif defined(AMALGAM_THREADSAFE_0)
#define SQLITE_THREADSAFE 0
#else
#define SQLITE_THREADSAFE 2
#endif

// The ENCRYPTION trait compiles SQLite3 Multiple Ciphers, SQLite 3.53.4 with its ciphers in one amalgamation
// (Vendor/SQLite3MultipleCiphers), in place of SQLite's own; every other option applies to it alike. The
// file compiled is the vendored one with the fixes in Vendor/SQLite3MultipleCiphers/patches applied, as
// Scripts/update-sqlite makes it.
#if defined(AMALGAM_ENABLE_ENCRYPTION)
#include "../../Vendor/SQLite3MultipleCiphers/patched/sqlite3mc_amalgamation.c"
#else
#include "../../Vendor/SQLite/sqlite3.c"
#endif
#include "AmalgamSQLite.h"

// Column readers for Amalgam's hot paths. Compiled in the amalgamation's translation unit, so each reads
// the storage class and the value in one call where the C API takes two (sqlite3_column_type, then
// sqlite3_column_int64). They skip the connection mutex that sqlite3_column_* take: Amalgam confines a
// connection to one thread at a time, and these run only between steps on that thread.

// The current row's value of `column`, or NULL for a statement without a row or a column out of range.
static Mem *amalgamColumn(sqlite3_stmt *stmt, int column) {
  Vdbe *vm = (Vdbe *)stmt;
  if (vm == 0 || vm->pResultRow == 0 || column < 0 || column >= vm->nResColumn) return 0;
  return &vm->pResultRow[column];
}

amalgam_integer_column amalgam_column_integer(sqlite3_stmt *stmt, int column) {
  amalgam_integer_column result = {0, SQLITE_NULL};
  Mem *mem = amalgamColumn(stmt, column);
  if (mem == 0) return result;
  result.type = sqlite3_value_type(mem);
  if (result.type == SQLITE_INTEGER) result.value = mem->u.i;
  return result;
}

amalgam_real_column amalgam_column_real(sqlite3_stmt *stmt, int column) {
  amalgam_real_column result = {0.0, SQLITE_NULL};
  Mem *mem = amalgamColumn(stmt, column);
  if (mem == 0) return result;
  result.type = sqlite3_value_type(mem);
  if (result.type == SQLITE_FLOAT || result.type == SQLITE_INTEGER) result.value = sqlite3_value_double(mem);
  return result;
}

int amalgam_column_bytes(sqlite3_stmt *stmt, int column, const void **bytes, int *count) {
  Mem *mem = amalgamColumn(stmt, column);
  if (mem == 0) return SQLITE_NULL;
  int type = sqlite3_value_type(mem);
  if (type == SQLITE_TEXT) {
    *bytes = sqlite3_value_text(mem);
    *count = sqlite3_value_bytes(mem);
  } else if (type == SQLITE_BLOB) {
    *bytes = sqlite3_value_blob(mem);
    *count = sqlite3_value_bytes(mem);
  }
  return type;
}

// The flag of PRAGMA query_only, without the pragma's OP_Expire (see include/AmalgamSQLite.h). Compiled here
// because the flag lives in the connection's struct, which only the amalgamation's translation unit knows.
int amalgam_query_only(sqlite3 *db, int on) {
  if (db == 0) return 0;
  sqlite3_mutex_enter(db->mutex);
  int was = (db->flags & SQLITE_QueryOnly) != 0;
  if (on > 0) {
    db->flags |= SQLITE_QueryOnly;
  } else if (on == 0) {
    db->flags &= ~(u64)SQLITE_QueryOnly;
  }
  sqlite3_mutex_leave(db->mutex);
  return was;
}

// The connection's databases (main, temp, attached) as pairs of schema-name and btree pointers, compared
// with and written to `key` (see include/AmalgamSQLite.h). No mutex: Amalgam confines a connection to one
// thread at a time, and this runs between its statements.
int amalgam_databases_unchanged(sqlite3 *db, const void **key, int capacity, int *count) {
  if (db == 0 || key == 0 || count == 0) return 0;
  int n = db->nDb;
  if (n < 0 || 2 * n > capacity) {
    *count = -1;
    return 0;
  }
  const Db *databases = db->aDb;
  if (*count == 2 * n) {
    int i = 0;
    while (i < n && key[2 * i] == databases[i].zDbSName && key[2 * i + 1] == databases[i].pBt) i++;
    if (i == n) return 1;
  }
  for (int i = 0; i < n; i++) {
    key[2 * i] = databases[i].zDbSName;
    key[2 * i + 1] = databases[i].pBt;
  }
  *count = 2 * n;
  return 0;
}

// ---- Rowid-level regions (see include/AmalgamSQLite.h) ----
//
// amalgam_analyze_rowids reads a statement's bytecode. It was written against SQLite 3.53.4's opcodes
// (vdbe.c): an update of SQLite must check that the roles below still hold, and give a role to each new
// opcode (an opcode without one makes every statement that uses it opaque, which is safe but pins
// nothing).

/// What an opcode does with cursors, for the analysis.
enum {
  /// Not classified: the statement is opaque.
  amalgamRoleUnknown = 0,
  /// Uses no cursor.
  amalgamRoleNeutral,
  /// Reads cursor P1's current row, or its state, without moving it: allowed on a pinned cursor.
  amalgamRoleReadsRow,
  /// Moves, scans, counts or writes through cursor P1: its table is read at all rows.
  amalgamRoleCursorP1,
  /// As amalgamRoleCursorP1, for cursors P1 and P2.
  amalgamRoleCursorP1P2,
  /// As amalgamRoleCursorP1, for cursors P1 and P3.
  amalgamRoleCursorP1P3,
  /// As amalgamRoleCursorP1, for the cursor P1 of the next instruction (OP_SeekScan).
  amalgamRoleCursorOfNext,
  /// Opens cursor P1 on btree P2 (a root page) of database P3.
  amalgamRoleOpensBtree,
  /// OP_SeekRowid: moves cursor P1 to the rowid in register P3.
  amalgamRoleSeeksRowid,
  /// Reads or changes the database in a way the analysis does not follow (subprograms, nested SQL,
  /// schema and btree operations): the statement is opaque.
  amalgamRoleOpaque,
};

static const unsigned char amalgamOpcodeRoles[256] = {
  [OP_Savepoint] = amalgamRoleNeutral, [OP_AutoCommit] = amalgamRoleNeutral,
  [OP_Transaction] = amalgamRoleNeutral, [OP_Checkpoint] = amalgamRoleOpaque,
  [OP_JournalMode] = amalgamRoleOpaque, [OP_Vacuum] = amalgamRoleOpaque, [OP_VFilter] = amalgamRoleCursorP1,
  [OP_VUpdate] = amalgamRoleNeutral, [OP_Init] = amalgamRoleNeutral, [OP_Goto] = amalgamRoleNeutral,
  [OP_Gosub] = amalgamRoleNeutral, [OP_InitCoroutine] = amalgamRoleNeutral, [OP_Yield] = amalgamRoleNeutral,
  [OP_MustBeInt] = amalgamRoleNeutral, [OP_Jump] = amalgamRoleNeutral, [OP_Once] = amalgamRoleNeutral,
  [OP_If] = amalgamRoleNeutral, [OP_IfNot] = amalgamRoleNeutral, [OP_IsType] = amalgamRoleReadsRow,
  [OP_Not] = amalgamRoleNeutral, [OP_IfNullRow] = amalgamRoleReadsRow, [OP_SeekLT] = amalgamRoleCursorP1,
  [OP_SeekLE] = amalgamRoleCursorP1, [OP_SeekGE] = amalgamRoleCursorP1, [OP_SeekGT] = amalgamRoleCursorP1,
  [OP_IfNotOpen] = amalgamRoleReadsRow, [OP_IfNoHope] = amalgamRoleCursorP1,
  [OP_NoConflict] = amalgamRoleCursorP1, [OP_NotFound] = amalgamRoleCursorP1, [OP_Found] = amalgamRoleCursorP1,
  [OP_SeekRowid] = amalgamRoleSeeksRowid, [OP_NotExists] = amalgamRoleCursorP1, [OP_Last] = amalgamRoleCursorP1,
  [OP_IfSizeBetween] = amalgamRoleCursorP1, [OP_SorterSort] = amalgamRoleCursorP1,
  [OP_Sort] = amalgamRoleCursorP1, [OP_Rewind] = amalgamRoleCursorP1, [OP_IfEmpty] = amalgamRoleCursorP1,
  [OP_SorterNext] = amalgamRoleCursorP1, [OP_Prev] = amalgamRoleCursorP1, [OP_Next] = amalgamRoleCursorP1,
  [OP_IdxLE] = amalgamRoleCursorP1, [OP_IdxGT] = amalgamRoleCursorP1, [OP_Or] = amalgamRoleNeutral,
  [OP_And] = amalgamRoleNeutral, [OP_IdxLT] = amalgamRoleCursorP1, [OP_IdxGE] = amalgamRoleCursorP1,
  [OP_IFindKey] = amalgamRoleCursorP1, [OP_RowSetRead] = amalgamRoleNeutral,
  [OP_RowSetTest] = amalgamRoleNeutral, [OP_Program] = amalgamRoleOpaque, [OP_IsNull] = amalgamRoleNeutral,
  [OP_NotNull] = amalgamRoleNeutral, [OP_Ne] = amalgamRoleNeutral, [OP_Eq] = amalgamRoleNeutral,
  [OP_Gt] = amalgamRoleNeutral, [OP_Le] = amalgamRoleNeutral, [OP_Lt] = amalgamRoleNeutral,
  [OP_Ge] = amalgamRoleNeutral, [OP_ElseEq] = amalgamRoleNeutral, [OP_FkIfZero] = amalgamRoleNeutral,
  [OP_IfPos] = amalgamRoleNeutral, [OP_IfNotZero] = amalgamRoleNeutral, [OP_DecrJumpZero] = amalgamRoleNeutral,
  [OP_IncrVacuum] = amalgamRoleOpaque, [OP_VNext] = amalgamRoleCursorP1, [OP_Filter] = amalgamRoleNeutral,
  [OP_PureFunc] = amalgamRoleNeutral, [OP_Function] = amalgamRoleNeutral, [OP_Return] = amalgamRoleNeutral,
  [OP_EndCoroutine] = amalgamRoleNeutral, [OP_HaltIfNull] = amalgamRoleNeutral, [OP_Halt] = amalgamRoleNeutral,
  [OP_Integer] = amalgamRoleNeutral, [OP_Int64] = amalgamRoleNeutral, [OP_String] = amalgamRoleNeutral,
  [OP_BeginSubrtn] = amalgamRoleNeutral, [OP_Null] = amalgamRoleNeutral, [OP_SoftNull] = amalgamRoleNeutral,
  [OP_Blob] = amalgamRoleNeutral, [OP_Variable] = amalgamRoleNeutral, [OP_Move] = amalgamRoleNeutral,
  [OP_Copy] = amalgamRoleNeutral, [OP_SCopy] = amalgamRoleNeutral, [OP_IntCopy] = amalgamRoleNeutral,
  [OP_FkCheck] = amalgamRoleNeutral, [OP_ResultRow] = amalgamRoleNeutral, [OP_CollSeq] = amalgamRoleNeutral,
  [OP_AddImm] = amalgamRoleNeutral, [OP_RealAffinity] = amalgamRoleNeutral, [OP_Cast] = amalgamRoleNeutral,
  [OP_Permutation] = amalgamRoleNeutral, [OP_Compare] = amalgamRoleNeutral, [OP_IsTrue] = amalgamRoleNeutral,
  [OP_ZeroOrNull] = amalgamRoleNeutral, [OP_Offset] = amalgamRoleReadsRow, [OP_Column] = amalgamRoleReadsRow,
  [OP_TypeCheck] = amalgamRoleNeutral, [OP_Affinity] = amalgamRoleNeutral, [OP_MakeRecord] = amalgamRoleNeutral,
  [OP_Count] = amalgamRoleCursorP1, [OP_ReadCookie] = amalgamRoleNeutral, [OP_SetCookie] = amalgamRoleNeutral,
  [OP_BitAnd] = amalgamRoleNeutral, [OP_BitOr] = amalgamRoleNeutral, [OP_ShiftLeft] = amalgamRoleNeutral,
  [OP_ShiftRight] = amalgamRoleNeutral, [OP_Add] = amalgamRoleNeutral, [OP_Subtract] = amalgamRoleNeutral,
  [OP_Multiply] = amalgamRoleNeutral, [OP_Divide] = amalgamRoleNeutral, [OP_Remainder] = amalgamRoleNeutral,
  [OP_Concat] = amalgamRoleNeutral, [OP_ReopenIdx] = amalgamRoleOpensBtree, [OP_OpenRead] = amalgamRoleOpensBtree,
  [OP_BitNot] = amalgamRoleNeutral, [OP_OpenWrite] = amalgamRoleOpensBtree, [OP_OpenDup] = amalgamRoleCursorP1P2,
  [OP_String8] = amalgamRoleNeutral, [OP_OpenAutoindex] = amalgamRoleCursorP1,
  [OP_OpenEphemeral] = amalgamRoleCursorP1, [OP_SorterOpen] = amalgamRoleCursorP1,
  [OP_SequenceTest] = amalgamRoleCursorP1, [OP_OpenPseudo] = amalgamRoleCursorP1, [OP_Close] = amalgamRoleReadsRow,
  [OP_ColumnsUsed] = amalgamRoleReadsRow, [OP_SeekScan] = amalgamRoleCursorOfNext,
  [OP_SeekHit] = amalgamRoleCursorP1, [OP_Sequence] = amalgamRoleCursorP1, [OP_NewRowid] = amalgamRoleCursorP1,
  [OP_Insert] = amalgamRoleCursorP1, [OP_RowCell] = amalgamRoleCursorP1P2, [OP_Delete] = amalgamRoleCursorP1,
  [OP_ResetCount] = amalgamRoleNeutral, [OP_SorterCompare] = amalgamRoleCursorP1,
  [OP_SorterData] = amalgamRoleCursorP1P3, [OP_RowData] = amalgamRoleCursorP1, [OP_Rowid] = amalgamRoleReadsRow,
  [OP_NullRow] = amalgamRoleReadsRow, [OP_SeekEnd] = amalgamRoleCursorP1, [OP_IdxInsert] = amalgamRoleCursorP1,
  [OP_SorterInsert] = amalgamRoleCursorP1, [OP_IdxDelete] = amalgamRoleCursorP1,
  [OP_DeferredSeek] = amalgamRoleCursorP1P3, [OP_IdxRowid] = amalgamRoleCursorP1P3,
  [OP_FinishSeek] = amalgamRoleReadsRow, [OP_Destroy] = amalgamRoleOpaque, [OP_Clear] = amalgamRoleOpaque,
  [OP_ResetSorter] = amalgamRoleCursorP1, [OP_CreateBtree] = amalgamRoleOpaque, [OP_SqlExec] = amalgamRoleOpaque,
  [OP_ParseSchema] = amalgamRoleOpaque, [OP_LoadAnalysis] = amalgamRoleOpaque, [OP_DropTable] = amalgamRoleOpaque,
  [OP_Real] = amalgamRoleNeutral, [OP_DropIndex] = amalgamRoleOpaque, [OP_DropTrigger] = amalgamRoleOpaque,
  [OP_IntegrityCk] = amalgamRoleOpaque, [OP_RowSetAdd] = amalgamRoleNeutral, [OP_Param] = amalgamRoleOpaque,
  [OP_FkCounter] = amalgamRoleNeutral, [OP_MemMax] = amalgamRoleNeutral, [OP_OffsetLimit] = amalgamRoleNeutral,
  [OP_AggInverse] = amalgamRoleNeutral, [OP_AggStep] = amalgamRoleNeutral, [OP_AggStep1] = amalgamRoleNeutral,
  [OP_AggValue] = amalgamRoleNeutral, [OP_AggFinal] = amalgamRoleNeutral, [OP_Expire] = amalgamRoleNeutral,
  [OP_CursorLock] = amalgamRoleCursorP1, [OP_CursorUnlock] = amalgamRoleCursorP1,
  [OP_TableLock] = amalgamRoleNeutral, [OP_VBegin] = amalgamRoleNeutral, [OP_VCreate] = amalgamRoleOpaque,
  [OP_VDestroy] = amalgamRoleOpaque, [OP_VOpen] = amalgamRoleCursorP1, [OP_VCheck] = amalgamRoleOpaque,
  [OP_VInitIn] = amalgamRoleCursorP1, [OP_VColumn] = amalgamRoleCursorP1, [OP_VRename] = amalgamRoleOpaque,
  [OP_Pagecount] = amalgamRoleNeutral, [OP_MaxPgcnt] = amalgamRoleNeutral, [OP_ClrSubtype] = amalgamRoleNeutral,
  [OP_GetSubtype] = amalgamRoleNeutral, [OP_SetSubtype] = amalgamRoleNeutral, [OP_FilterAdd] = amalgamRoleNeutral,
  [OP_Trace] = amalgamRoleNeutral, [OP_CursorHint] = amalgamRoleReadsRow, [OP_ReleaseReg] = amalgamRoleNeutral,
  [OP_Noop] = amalgamRoleNeutral, [OP_Explain] = amalgamRoleNeutral, [OP_Abortable] = amalgamRoleNeutral,
};

/// The table of schema `iDb` whose btree has root page `root`, with whether the btree is the table's own
/// rowid btree (1) or an index of it, or a WITHOUT ROWID table (0). NULL when no table of the schema
/// has that btree.
static Table *amalgamTableOfBtree(sqlite3 *db, int iDb, Pgno root, int *isRowidBtree) {
  Schema *schema = db->aDb[iDb].pSchema;
  if (schema == 0) return 0;
  for (HashElem *element = sqliteHashFirst(&schema->tblHash); element; element = sqliteHashNext(element)) {
    Table *table = (Table *)sqliteHashData(element);
    if (IsOrdinaryTable(table) && table->tnum == root) {
      *isRowidBtree = HasRowid(table) ? 1 : 0;
      return table;
    }
  }
  for (HashElem *element = sqliteHashFirst(&schema->idxHash); element; element = sqliteHashNext(element)) {
    Index *index = (Index *)sqliteHashData(element);
    if (index->tnum == root && index->pTable != 0) {
      *isRowidBtree = 0;
      return index->pTable;
    }
  }
  return 0;
}

/// The entry of `table` in `analysis`, added (read at all rows until proved otherwise) if absent; -1
/// when memory runs out.
static int amalgamTableEntry(amalgam_rowid_analysis *analysis, sqlite3 *db, int iDb, Table *table) {
  for (int index = 0; index < analysis->tableCount; index++) {
    if (analysis->tables[index].databaseIndex == iDb && analysis->tables[index].identity == table) return index;
  }
  amalgam_read_table entry = {0};
  entry.databaseIndex = iDb;
  entry.identity = table;
  entry.schema = sqlite3_mprintf("%s", db->aDb[iDb].zDbSName);
  entry.name = sqlite3_mprintf("%s", table->zName);
  entry.isPinned = 1;
  amalgam_read_table *tables =
    sqlite3_realloc64(analysis->tables, sizeof(amalgam_read_table) * (sqlite3_uint64)(analysis->tableCount + 1));
  if (entry.schema == 0 || entry.name == 0 || tables == 0) {
    sqlite3_free(entry.schema);
    sqlite3_free(entry.name);
    if (tables) analysis->tables = tables;
    return -1;
  }
  analysis->tables = tables;
  analysis->tables[analysis->tableCount] = entry;
  return analysis->tableCount++;
}

/// The analysis of a program: the state of its cursors and of its instructions.
typedef struct AmalgamProgramScan {
  const VdbeOp *ops;
  int opCount;
  int cursorCount;
  /// For each cursor, the entry in the analysis of the table it reads, or -1.
  int *cursorTable;
  /// For each cursor, how many instructions open it.
  int *cursorOpens;
  /// For each instruction, whether control may reach it other than from the instruction before it.
  u8 *isJumpTarget;
} AmalgamProgramScan;

/// Marks the table read through `cursor` as read at all rows.
static void amalgamUnpin(AmalgamProgramScan *scan, amalgam_rowid_analysis *analysis, int cursor) {
  if (cursor < 0 || cursor >= scan->cursorCount) return;
  int table = scan->cursorTable[cursor];
  if (table >= 0) analysis->tables[table].isPinned = 0;
}

static void amalgamMarkTarget(AmalgamProgramScan *scan, sqlite3_int64 address) {
  if (address >= 0 && address < scan->opCount) scan->isJumpTarget[address] = 1;
}

/// Marks every instruction that control may reach other than by falling through from the one before.
static void amalgamMarkJumpTargets(AmalgamProgramScan *scan) {
  int returnsIndirectly = 0;
  for (int pc = 0; pc < scan->opCount; pc++) {
    const VdbeOp *op = &scan->ops[pc];
    if (sqlite3OpcodeProperty[op->opcode] & OPFLG_JUMP) amalgamMarkTarget(scan, op->p2);
    switch (op->opcode) {
      case OP_Jump:
        amalgamMarkTarget(scan, op->p1);
        amalgamMarkTarget(scan, op->p2);
        amalgamMarkTarget(scan, op->p3);
        break;
      case OP_Init:
        // P3, when set, is where OP_Column goes on a corrupt record.
        amalgamMarkTarget(scan, op->p2);
        if (op->p3 > 0) amalgamMarkTarget(scan, op->p3);
        break;
      case OP_InitCoroutine:
        // The coroutine's first OP_Yield goes to P3.
        amalgamMarkTarget(scan, op->p2);
        amalgamMarkTarget(scan, op->p3);
        break;
      case OP_Gosub:
      case OP_Yield:
        // OP_Return and OP_Yield come back after them.
        amalgamMarkTarget(scan, pc + 1);
        returnsIndirectly = 1;
        break;
      case OP_Return:
      case OP_EndCoroutine:
        returnsIndirectly = 1;
        break;
      case OP_ResultRow:
        // The next sqlite3_step resumes after it.
        amalgamMarkTarget(scan, pc + 1);
        break;
      default:
        break;
    }
  }
  if (!returnsIndirectly) return;
  // OP_Return and OP_Yield jump to an address held in a register: in case an OP_Integer stored one,
  // every small integer constant counts as an address.
  for (int pc = 0; pc < scan->opCount; pc++) {
    if (scan->ops[pc].opcode != OP_Integer) continue;
    amalgamMarkTarget(scan, scan->ops[pc].p1);
    amalgamMarkTarget(scan, (sqlite3_int64)scan->ops[pc].p1 + 1);
  }
}

/// Fills `analysis` for the program of `vm`; returns 0 when the program is opaque or memory runs out.
static int amalgamScanProgram(Vdbe *vm, amalgam_rowid_analysis *analysis) {
  sqlite3 *db = vm->db;
  AmalgamProgramScan scan = {vm->aOp, vm->nOp, vm->nCursor, 0, 0, 0};
  int ok = 0;
  typedef struct {
    int cursor;
    int parameter;
    sqlite3_int64 constant;
  } Seek;
  Seek *seeks = 0;
  int seekCount = 0;
  for (int pc = 0; pc < scan.opCount; pc++) {
    int role = amalgamOpcodeRoles[scan.ops[pc].opcode];
    if (role == amalgamRoleUnknown || role == amalgamRoleOpaque) return 0;
  }
  if (scan.cursorCount > 0) {
    scan.cursorTable = sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)scan.cursorCount);
    scan.cursorOpens = sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)scan.cursorCount);
    if (scan.cursorTable == 0 || scan.cursorOpens == 0) goto done;
    for (int cursor = 0; cursor < scan.cursorCount; cursor++) {
      scan.cursorTable[cursor] = -1;
      scan.cursorOpens[cursor] = 0;
    }
  }
  scan.isJumpTarget = sqlite3_malloc64((sqlite3_uint64)scan.opCount + 1);
  seeks = sqlite3_malloc64(sizeof(Seek) * ((sqlite3_uint64)scan.opCount + 1));
  if (scan.isJumpTarget == 0 || seeks == 0) goto done;
  memset(scan.isJumpTarget, 0, (size_t)scan.opCount + 1);
  amalgamMarkJumpTargets(&scan);

  // The cursors on btrees, and the tables they read.
  for (int pc = 0; pc < scan.opCount; pc++) {
    const VdbeOp *op = &scan.ops[pc];
    if (amalgamOpcodeRoles[op->opcode] != amalgamRoleOpensBtree) continue;
    // A root page computed at run time (OPFLAG_P2ISREG), a database or cursor out of range, or a btree
    // that no table of the schema owns: what is read is unknown.
    if ((op->p5 & OPFLAG_P2ISREG) != 0 || op->p1 < 0 || op->p1 >= scan.cursorCount || op->p3 < 0
      || op->p3 >= db->nDb || op->p2 <= 0)
      goto done;
    int isRowidBtree = 0;
    Table *table = amalgamTableOfBtree(db, op->p3, (Pgno)op->p2, &isRowidBtree);
    if (table == 0) goto done;
    int entry = amalgamTableEntry(analysis, db, op->p3, table);
    if (entry < 0) goto done;
    if (!isRowidBtree || op->opcode != OP_OpenRead) analysis->tables[entry].isPinned = 0;
    int cursor = op->p1;
    scan.cursorOpens[cursor]++;
    if (scan.cursorOpens[cursor] > 1) {
      // Two instructions open this cursor: both tables are read at all rows.
      amalgamUnpin(&scan, analysis, cursor);
      analysis->tables[entry].isPinned = 0;
    }
    scan.cursorTable[cursor] = entry;
  }

  // How each cursor is used.
  for (int pc = 0; pc < scan.opCount; pc++) {
    const VdbeOp *op = &scan.ops[pc];
    switch (amalgamOpcodeRoles[op->opcode]) {
      case amalgamRoleCursorP1:
        amalgamUnpin(&scan, analysis, op->p1);
        break;
      case amalgamRoleCursorP1P2:
        amalgamUnpin(&scan, analysis, op->p1);
        amalgamUnpin(&scan, analysis, op->p2);
        break;
      case amalgamRoleCursorP1P3:
        amalgamUnpin(&scan, analysis, op->p1);
        amalgamUnpin(&scan, analysis, op->p3);
        break;
      case amalgamRoleCursorOfNext:
        if (pc + 1 < scan.opCount) amalgamUnpin(&scan, analysis, scan.ops[pc + 1].p1);
        break;
      case amalgamRoleSeeksRowid: {
        // The key is pinned when the instruction before loads it from a parameter or a constant, and
        // control reaches the seek from there only.
        const VdbeOp *load = pc > 0 ? &scan.ops[pc - 1] : 0;
        if (load == 0 || scan.isJumpTarget[pc] || load->p2 != op->p3) {
          amalgamUnpin(&scan, analysis, op->p1);
        } else if (load->opcode == OP_Variable) {
          seeks[seekCount++] = (Seek){op->p1, load->p1, 0};
        } else if (load->opcode == OP_Integer) {
          seeks[seekCount++] = (Seek){op->p1, 0, load->p1};
        } else if (load->opcode == OP_Int64 && load->p4type == P4_INT64 && load->p4.pI64 != 0) {
          seeks[seekCount++] = (Seek){op->p1, 0, *load->p4.pI64};
        } else {
          amalgamUnpin(&scan, analysis, op->p1);
        }
        break;
      }
      default:
        break;
    }
  }

  // The pins of the tables still read only through pinned seeks.
  for (int index = 0; index < seekCount; index++) {
    int cursor = seeks[index].cursor;
    int table = cursor >= 0 && cursor < scan.cursorCount ? scan.cursorTable[cursor] : -1;
    if (table < 0 || !analysis->tables[table].isPinned) continue;
    amalgam_rowid_pin *pins =
      sqlite3_realloc64(analysis->pins, sizeof(amalgam_rowid_pin) * (sqlite3_uint64)(analysis->pinCount + 1));
    if (pins == 0) goto done;
    analysis->pins = pins;
    analysis->pins[analysis->pinCount++] = (amalgam_rowid_pin){table, seeks[index].parameter, seeks[index].constant};
  }
  // A table opened but never sought (which SQLite does not compile) is counted as read at all rows.
  for (int table = 0; table < analysis->tableCount; table++) {
    if (!analysis->tables[table].isPinned) continue;
    int hasPin = 0;
    for (int index = 0; index < analysis->pinCount; index++) {
      if (analysis->pins[index].table == table) hasPin = 1;
    }
    if (!hasPin) analysis->tables[table].isPinned = 0;
  }
  ok = 1;

done:
  sqlite3_free(scan.cursorTable);
  sqlite3_free(scan.cursorOpens);
  sqlite3_free(scan.isJumpTarget);
  sqlite3_free(seeks);
  return ok;
}

void amalgam_rowid_analysis_free(amalgam_rowid_analysis *analysis) {
  if (analysis == 0) return;
  for (int index = 0; index < analysis->tableCount; index++) {
    sqlite3_free(analysis->tables[index].schema);
    sqlite3_free(analysis->tables[index].name);
  }
  sqlite3_free(analysis->tables);
  sqlite3_free(analysis->pins);
  sqlite3_free(analysis);
}

amalgam_rowid_analysis *amalgam_analyze_rowids(sqlite3_stmt *statement) {
  Vdbe *vm = (Vdbe *)statement;
  if (vm == 0) return 0;
  amalgam_rowid_analysis *analysis = sqlite3_malloc64(sizeof(amalgam_rowid_analysis));
  if (analysis == 0) return 0;
  memset(analysis, 0, sizeof(*analysis));
  sqlite3_mutex_enter(vm->db->mutex);
  analysis->program = vm->aOp;
  analysis->instructionCount = vm->nOp;
  if (!amalgamScanProgram(vm, analysis)) {
    // Opaque: what the statement reads is not known table by table.
    for (int index = 0; index < analysis->tableCount; index++) {
      sqlite3_free(analysis->tables[index].schema);
      sqlite3_free(analysis->tables[index].name);
    }
    sqlite3_free(analysis->tables);
    sqlite3_free(analysis->pins);
    analysis->tables = 0;
    analysis->pins = 0;
    analysis->tableCount = 0;
    analysis->pinCount = 0;
    analysis->isOpaque = 1;
  }
  sqlite3_mutex_leave(vm->db->mutex);
  return analysis;
}

const void *amalgam_statement_program(sqlite3_stmt *statement, int *instructionCount) {
  Vdbe *vm = (Vdbe *)statement;
  *instructionCount = vm ? vm->nOp : 0;
  return vm ? vm->aOp : 0;
}

int amalgam_bound_rowid(sqlite3_stmt *statement, int parameter, sqlite3_int64 *rowid) {
  Vdbe *vm = (Vdbe *)statement;
  if (vm == 0 || parameter < 1 || parameter > vm->nVar) return -1;
  const Mem *value = &vm->aVar[parameter - 1];
  // As OP_SeekRowid: an integer is the rowid; another value is converted with NUMERIC affinity in a
  // copy, and is a rowid only if that gives an integer.
  if (value->flags & (MEM_Int | MEM_IntReal)) {
    *rowid = value->u.i;
    return 1;
  }
  Mem copy = *value;
  applyAffinity(&copy, SQLITE_AFF_NUMERIC, ENC(vm->db));
  if ((copy.flags & MEM_Int) == 0) return 0;
  *rowid = copy.u.i;
  return 1;
}

sqlite3_uint64 amalgam_schema_fingerprint(sqlite3 *db) {
  if (db == 0) return 0;
  sqlite3_mutex_enter(db->mutex);
  // FNV-1a over the schemas' identities, cookies and generations.
  sqlite3_uint64 hash = 0xcbf29ce484222325ULL;
#define AMALGAM_MIX(value)                 \
  do {                                     \
    hash ^= (sqlite3_uint64)(value);       \
    hash *= 0x100000001b3ULL;              \
  } while (0)
  AMALGAM_MIX(db->nDb);
  for (int index = 0; index < db->nDb; index++) {
    Schema *schema = db->aDb[index].pSchema;
    AMALGAM_MIX((uintptr_t)schema);
    AMALGAM_MIX((uintptr_t)db->aDb[index].pBt);
    if (schema) {
      AMALGAM_MIX((u32)schema->schema_cookie);
      AMALGAM_MIX((u32)schema->iGeneration);
      AMALGAM_MIX(schema->schemaFlags);
    }
  }
#undef AMALGAM_MIX
  sqlite3_mutex_leave(db->mutex);
  return hash;
}

static int amalgamRelayTrace(unsigned code, void *context, void *subject, void *detail) {
  amalgam_statement_relay *relay = context;
  if (code == SQLITE_TRACE_STMT && relay->onStatement) relay->onStatement(relay->context, (sqlite3_stmt *)subject);
  if ((relay->previousMask & code) != 0 && relay->previousCallback != 0) {
    return relay->previousCallback(code, relay->previousContext, subject, detail);
  }
  return 0;
}

int amalgam_statement_relay_install(sqlite3 *db, amalgam_statement_relay *relay) {
  if (db == 0 || relay == 0) return 0;
  sqlite3_mutex_enter(db->mutex);
  int installed = 0;
  if (db->mTrace != 0 && db->trace.xV2 == amalgamRelayTrace) {
    installed = db->pTraceArg == relay;
  } else if ((db->mTrace & ~SQLITE_TRACE_NONLEGACY_MASK) == 0) {
    relay->previousMask = db->mTrace;
    relay->previousCallback = db->mTrace ? db->trace.xV2 : 0;
    relay->previousContext = db->mTrace ? db->pTraceArg : 0;
    installed = sqlite3_trace_v2(db, relay->previousMask | SQLITE_TRACE_STMT, amalgamRelayTrace, relay) == SQLITE_OK;
  }
  sqlite3_mutex_leave(db->mutex);
  return installed;
}

int amalgam_statement_relay_remove(sqlite3 *db, amalgam_statement_relay *relay) {
  if (db == 0 || relay == 0) return 0;
  sqlite3_mutex_enter(db->mutex);
  int wasInstalled = db->trace.xV2 == amalgamRelayTrace && db->pTraceArg == relay
    && (db->mTrace & SQLITE_TRACE_STMT) != 0;
  if (wasInstalled) {
    sqlite3_trace_v2(db, relay->previousMask, relay->previousCallback, relay->previousContext);
  }
  sqlite3_mutex_leave(db->mutex);
  return wasInstalled;
}

amalgam_own_statements amalgam_own_statements_begin(sqlite3 *db) {
  amalgam_own_statements taken = {0, 0};
  if (db == 0) return taken;
  sqlite3_mutex_enter(db->mutex);
  taken.traceMask = db->mTrace;
  db->mTrace = 0;
#ifndef SQLITE_OMIT_AUTHORIZATION
  taken.authorizer = (void (*)(void))db->xAuth;
  db->xAuth = 0;
#endif
  sqlite3_mutex_leave(db->mutex);
  return taken;
}

void amalgam_own_statements_end(sqlite3 *db, amalgam_own_statements taken) {
  if (db == 0) return;
  sqlite3_mutex_enter(db->mutex);
  db->mTrace = (u8)taken.traceMask;
#ifndef SQLITE_OMIT_AUTHORIZATION
  db->xAuth = (sqlite3_xauth)taken.authorizer;
#endif
  sqlite3_mutex_leave(db->mutex);
}

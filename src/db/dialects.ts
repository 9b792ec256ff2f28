import {
  LimitNode,
  OffsetNode,
  PostgresDialect,
  PostgresQueryCompiler,
  SqliteDialect,
  SqliteQueryCompiler,
  ValueNode,
  type QueryCompiler,
} from 'kysely';

/** A LIMIT given as a whole number when the query was built, which is safe to write into the SQL. */
function wholeLimit(node: LimitNode): number | null {
  const { limit } = node;
  return ValueNode.is(limit) && Number.isSafeInteger(limit.value) ? (limit.value as number) : null;
}

/**
 * Kysely's SQLite dialect, with whole-number LIMITs written into the SQL. SQLite plans a query
 * with the value of a bound LIMIT, so a statement whose LIMIT is bound anew is prepared again on
 * every run: about 15 µs for a page of projects, a tenth of the request (BENCHMARKS.md, #22).
 * Page sizes are few, so the statement cache holds one statement per size. OFFSET stays bound:
 * its value does not enter the plan.
 */
export class InlineLimitSqliteDialect extends SqliteDialect {
  override createQueryCompiler(): QueryCompiler {
    return new InlineLimitSqliteCompiler();
  }
}

class InlineLimitSqliteCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    const limit = wholeLimit(node);
    if (limit === null) super.visitLimit(node);
    else this.append(`limit ${limit}`);
  }
}

/**
 * Kysely's PostgreSQL dialect, with whole-number LIMITs written into the SQL and OFFSET 0 left
 * out. Our statements are named (db/database.ts), and PostgreSQL reuses a named statement's plan
 * only when a plan made without the parameters' values is estimated no worse than one made with
 * them: with LIMIT or OFFSET bound, it never is, and every run of a page query was planned anew
 * (a third of PostgreSQL's CPU per page of projects; BENCHMARKS.md, #22). A first page then has
 * one statement per page size, planned once per connection; later pages keep their bound OFFSET.
 */
export class InlineLimitPostgresDialect extends PostgresDialect {
  override createQueryCompiler(): QueryCompiler {
    return new InlineLimitPostgresCompiler();
  }
}

class InlineLimitPostgresCompiler extends PostgresQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    const limit = wholeLimit(node);
    if (limit === null) super.visitLimit(node);
    else this.append(`limit ${limit}`);
  }

  protected override visitOffset(node: OffsetNode): void {
    if (ValueNode.is(node.offset) && node.offset.value === 0) return;
    super.visitOffset(node);
  }
}

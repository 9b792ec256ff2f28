import { LimitNode, SqliteDialect, SqliteQueryCompiler, ValueNode, type QueryCompiler } from 'kysely';

/**
 * Kysely's SQLite dialect, with whole-number LIMITs written into the SQL. SQLite plans a query
 * with the value of a bound LIMIT, so a statement whose LIMIT is bound anew is prepared again on
 * every run: about 15 µs for a page of projects, a tenth of the request (BENCHMARKS.md, #22).
 * Page sizes are few, so the statement cache holds one statement per size. OFFSET stays bound:
 * its value does not enter the plan.
 */
export class InlineLimitSqliteDialect extends SqliteDialect {
  override createQueryCompiler(): QueryCompiler {
    return new InlineLimitCompiler();
  }
}

class InlineLimitCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    const { limit } = node;
    if (ValueNode.is(limit) && Number.isSafeInteger(limit.value))
      this.append(`limit ${limit.value as number}`);
    else super.visitLimit(node);
  }
}

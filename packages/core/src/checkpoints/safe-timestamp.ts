/**
 * SQL reading `text` as a timestamptz when it is an ISO 8601 date-time Postgres reads
 * (`2026-11-30T08:00:00.000Z`, `2026-11-30 09:30:00.000000+00:00`), else NULL, never an
 * error: the shape is checked by a pattern, the day of the month against the month's
 * length, and only then is it cast (a CASE evaluates its branches in order, unlike AND).
 * With `offset: "optional"`, a date-time without an offset is read too, in the session's
 * time zone, as a cast reads it.
 */
export function safeTimestampSql(text: string, offset: "required" | "optional" = "required"): string {
  const year = `substr(${text}, 1, 4)::int`;
  const monthDays = `case substr(${text}, 6, 2)
        when '02' then case when (${year} % 4 = 0 and ${year} % 100 <> 0) or ${year} % 400 = 0 then 29 else 28 end
        when '04' then 30 when '06' then 30 when '09' then 30 when '11' then 30
        else 31 end`;
  const zone = `([Zz]|[+-]([01][0-9]|2[0-3])(:?[0-5][0-9])?)${offset === "optional" ? "?" : ""}`;
  return `case when ${text} ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[T ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?${zone}$'
      and substr(${text}, 1, 4) <> '0000'
    then case when substr(${text}, 9, 2)::int <= ${monthDays}
      then (${text})::timestamptz end end`;
}

/** Save reports (a dry run or a real save) as table rows: the four message counts, chunks and embeddings. */
import type { ReactNode } from 'react';
import type { SaveReport } from '../../../shared/domain.js';
import { useFormat } from '../format.js';
import { useT } from '../i18n.js';
import { sessionHref } from '../router.js';
import { DiffBar, DiffCount, DIFF_KINDS, STAT_KEYS } from './ui.js';

export function ReportHeaderCells({ withMessages = true, withDuration = false }: { withMessages?: boolean; withDuration?: boolean }): ReactNode {
  const t = useT();
  return (
    <>
      {withMessages && (
        <th scope="col" className="numeric">
          {t('stat.messages')}
        </th>
      )}
      {DIFF_KINDS.map((kind) => (
        <th key={kind} scope="col" className="numeric">
          <span className="nowrap">
            <span className={`legend-dot legend-dot--${kind}`} aria-hidden="true" />
            {t(STAT_KEYS[kind])}
          </span>
        </th>
      ))}
      <th scope="col" className="diff-column" aria-hidden="true" />
      <th scope="col" className="numeric">
        {t('stat.chunksWritten')}
      </th>
      <th scope="col" className="numeric">
        {t('stat.embeddings')}
      </th>
      {withDuration && (
        <th scope="col" className="numeric">
          {t('stat.duration')}
        </th>
      )}
    </>
  );
}

export function ReportCells({ report, withDuration = false }: { report: SaveReport; withDuration?: boolean }): ReactNode {
  const format = useFormat();
  return (
    <>
      <td className="numeric">{format.number(report.total)}</td>
      {DIFF_KINDS.map((kind) => (
        <td key={kind} className="numeric">
          <DiffCount kind={kind} value={report[kind]} />
        </td>
      ))}
      <td className="diff-column" aria-hidden="true">
        <DiffBar counts={report} />
      </td>
      <td className="numeric">{format.number(report.chunksWritten)}</td>
      <td className="numeric">{format.number(report.embeddingsComputed)}</td>
      {withDuration && <td className="numeric nowrap">{format.duration(report.durationMs)}</td>}
    </>
  );
}

/** The session cell of a report row: its title linking to it, a note when it was already archived, warnings. */
export function ReportSessionCell({ report, title, link }: { report: SaveReport; title?: string; link: boolean }): ReactNode {
  const t = useT();
  const name = title || report.sessionId;
  return (
    <>
      {link ? <a href={sessionHref(report.sessionId)}>{name}</a> : <span>{name}</span>}
      {report.skippedSession && <span className="tag tag--muted">{t('report.skippedSession')}</span>}
      {report.forgotten && (
        <span className="tag tag--warning" title={t(report.dryRun ? 'report.forgottenPreviewHint' : 'report.forgottenHint')}>
          {t('report.forgotten')}
        </span>
      )}
      {report.redacted > 0 && (
        <span className="tag tag--muted" title={t('report.redactedHint')}>
          {t('report.redacted', { n: report.redacted })}
        </span>
      )}
      {report.warnings.length > 0 && (
        <ul className="warnings" aria-label={t('report.warnings')}>
          {report.warnings.map((warning, index) => (
            <li key={index}>{warning}</li>
          ))}
        </ul>
      )}
    </>
  );
}

/** One report as a small table (the overwrite's result). */
export function ReportTable({ reports, caption, titles }: { reports: SaveReport[]; caption: string; titles?: Map<string, string> }): ReactNode {
  const t = useT();
  return (
    <div className="table-scroll">
      <table className="table table--compact">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{t('import.col.session')}</th>
            <ReportHeaderCells withDuration />
          </tr>
        </thead>
        <tbody>
          {reports.map((report) => (
            <tr key={report.sessionId}>
              <th scope="row">
                <ReportSessionCell report={report} title={titles?.get(report.sessionId)} link />
              </th>
              <ReportCells report={report} withDuration />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

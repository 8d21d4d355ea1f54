import type { enThread } from "./en-thread.ts";

/** The Vietnamese sentences of a job's thread (see `enThread`). */
export const viThread: { readonly [K in keyof typeof enThread]: string } = {
  "status.queued": "Đang chuẩn bị phiên âm {file}…",
  "status.queued_waiting.one":
    "{file} đang chờ đến lượt: còn 1 bản ghi âm trước nó. Không có gì bị mất, nó sẽ tự bắt đầu.",
  "status.queued_waiting.other":
    "{file} đang chờ đến lượt: còn {count} bản ghi âm trước nó. Không có gì bị mất, nó sẽ tự bắt đầu.",
  "status.downloading": "Đang tải {file}…",
  "status.preparing": "Đang tách âm thanh khỏi {file} để Note Service dùng được…",
  "status.preparing_percent":
    "Đang tách âm thanh khỏi {file} để Note Service dùng được… {percent}%",
  "status.transcribing": "Đang phiên âm {file}…",
  "status.transcribing_percent": "Đang phiên âm {file}… {percent}%",
  "status.naming.one": "Đã nghe thấy 1 người nói. Hãy đặt tên để biên bản dùng tên thật.",
  "status.naming.other": "Đã nghe thấy {count} người nói. Hãy đặt tên để biên bản dùng tên thật.",
  "status.naming.more": "…và {count} người nữa",
  "status.writing": "Đang viết biên bản…",
  "status.delivering": "Đang đăng biên bản…",
  "status.done": "Biên bản đã sẵn sàng.",
  "status.canvas": ":memo: <{url}|Biên bản dạng canvas> — mọi người trong kênh đều đọc được.",
  "status.no_canvas.not_allowed":
    "Không có canvas: workspace này không cho ứng dụng tạo canvas, nên biên bản chỉ có trong luồng này.",
  "status.no_canvas.free_plan":
    "Không có canvas: gói của workspace này không cho ứng dụng tạo canvas, nên biên bản chỉ có trong luồng này.",
  "status.no_canvas.missing_scope":
    "Không có canvas: ứng dụng thiếu quyền canvases:write (quản trị viên có thể cài lại), nên biên bản chỉ có trong luồng này.",
  "status.no_canvas.too_large":
    "Không có canvas: biên bản dài hơn mức một canvas chứa được, nên chỉ có trong luồng này.",
  "status.no_canvas.refused":
    "Không có canvas: Slack không tạo hoặc không chia sẻ canvas cho biên bản này, nên biên bản chỉ có trong luồng này.",
  "status.canvas_dm": ":memo: <{url}|Biên bản dạng canvas> — đã chia sẻ với bạn.",
  "status.failed": "Không thể tạo biên bản từ {file}.",
  "status.canceled": "{user} đã hủy.",
  "status.elapsed": "Đã chạy {time}",
  "status.took": "Mất {time}",
  "status.lost":
    "Biên bản của bản ghi âm này đã bị mất khi bộ nhớ của bot bị đặt lại; hãy tải bản ghi âm lên lại.",
  "status.retry_hint": "Thử lại sẽ tiếp tục từ chỗ đã dừng.",
  "status.waiting.slack_files":
    "Máy chủ tệp của Slack hiện không phản hồi, nên tôi sẽ sớm tự thử tải lại.",
  "status.waiting.slack_download_cut":
    "Việc tải bản ghi âm từ Slack bị ngắt trước khi xong, nên tôi sẽ sớm tự thử tải lại.",
  "status.waiting.disk_full":
    "Ổ đĩa nơi tôi lưu bản ghi âm đã đầy: tôi sẽ tự thử lại khi quản trị viên giải phóng dung lượng.",
  "status.waiting.note_service": "Note Service hiện không phản hồi; tôi sẽ tự tiếp tục thử.",
  "stage.queued": "Đang chờ",
  "stage.queued_waiting": "Đang chờ đến lượt (còn {count} trước)",
  "stage.downloading": "Đang tải…",
  "stage.preparing": "Đang chuẩn bị âm thanh…",
  "stage.preparing_percent": "Đang chuẩn bị âm thanh… {percent}%",
  "stage.transcribing": "Đang phiên âm…",
  "stage.transcribing_percent": "Đang phiên âm… {percent}%",
  "stage.naming": "Đang chờ đặt tên người nói",
  "stage.writing": "Đang viết biên bản…",
  "stage.delivering": "Đang đăng biên bản…",
  "stage.done": "Biên bản đã sẵn sàng",
  "stage.failed": "Thất bại: {reason}",
  "stage.canceled": "Đã hủy",
  "failure.task_failed": "Note Service không xử lý được: {detail}",
  "failure.task_failed.plain": "Note Service không xử lý được.",
  "failure.auth":
    "Note Service không chấp nhận khóa API của ứng dụng; quản trị viên cần sửa khóa trong cấu hình của bot.",
  "failure.address":
    "Địa chỉ Note Service của bot không đúng nên tôi không gửi được: quản trị viên cần sửa địa chỉ này (phải kết thúc bằng đường dẫn API của nhà cung cấp), rồi bấm Thử lại.",
  "failure.refused": "Note Service từ chối yêu cầu: {detail}",
  "failure.refused.plain": "Note Service từ chối yêu cầu.",
  "failure.task_lost": "Note Service đã mất dấu tác vụ này.",
  "failure.timeout": "Quá {detail} phút vẫn chưa xong, nên tôi đã ngừng chờ.",
  "failure.timeout.plain": "Mất quá nhiều thời gian, nên tôi đã ngừng chờ.",
  "failure.unavailable": "Hiện không kết nối được với Note Service.",
  "failure.bad_response": "Note Service trả về một phản hồi mà tôi không đọc được.",
  "failure.invalid_input": "Note Service không nhận dữ liệu này: {detail}",
  "failure.invalid_input.plain": "Note Service không nhận dữ liệu này.",
  "failure.invalid_input.template": "Mẫu Word không còn nữa.",
  "failure.download_failed": "Tôi không tải được bản ghi âm từ Slack.",
  "failure.download_refused":
    "Slack không cho tôi đọc bản ghi âm: hãy mời tôi vào kênh nơi tệp được chia sẻ, hoặc chia sẻ lại tệp ở đây.",
  "failure.download_unavailable":
    "Máy chủ tệp của Slack không phản hồi trong thời gian dài, nên tôi đã ngừng thử tải bản ghi âm.",
  "failure.download_cut":
    "Việc tải bản ghi âm từ Slack liên tục bị ngắt trước khi xong, nên tôi đã ngừng thử.",
  "failure.disk_full":
    "Ổ đĩa nơi tôi lưu bản ghi âm đã đầy; quản trị viên cần giải phóng dung lượng trước.",
  "failure.not_audio":
    "{file} không phải là bản ghi âm, nên tôi không thể tạo biên bản từ tệp này.",
  "failure.unsupported_container":
    "{file} thực ra là {format}, một định dạng Note Service không nhận: hãy lưu lại thành một trong các định dạng {formats} rồi chia sẻ lại.",
  "failure.unsupported_container.plain":
    "{file} có định dạng mà Note Service không nhận: hãy lưu lại thành một trong các định dạng {formats} rồi chia sẻ lại.",
  "failure.slack_failed":
    "Slack không nhận tin nhắn hoặc tệp của tôi. Hãy kiểm tra xem tôi còn trong kênh này không.",
  "failure.slack_unavailable":
    "Slack không phản hồi tôi trong thời gian dài, nên tôi đã ngừng thử.",
  "failure.install_unavailable":
    "Slack đã thu hồi quyền truy cập của tôi vào không gian làm việc này, nên tôi đã dừng; khi quản trị viên cài đặt lại tôi, hãy bấm Thử lại.",
  "failure.no_speech": "Tôi không nghe thấy lời nói nào trong bản ghi âm.",
  "failure.no_sound": "{file} không có âm thanh, nên không có gì để tạo biên bản.",
  "failure.prepare_failed": "Tôi không đọc được âm thanh của {file}; tệp có thể bị hỏng.",
  "failure.too_long": "{file} dài hơn {hours} giờ, thời lượng tối đa của bản ghi mà tôi nhận.",
  "failure.too_long.plain": "{file} dài hơn thời lượng tối đa của bản ghi mà tôi nhận.",
  "failure.frame_too_large":
    "{file} chứa khung hình video lớn hơn nhiều so với bất kỳ cuộc họp nào, nên tôi sẽ không đọc nó.",
  "failure.prepare_too_slow":
    "Việc đọc {file} mất nhiều thời gian hơn hẳn so với độ dài của nó; tệp có thể bị hỏng.",
  "failure.prepare_failed.no_ffmpeg":
    "Tôi không thể chuẩn bị {file} vì nơi tôi chạy không còn FFmpeg; quản trị viên có thể cài lại, rồi bấm Thử lại.",
  "failure.prepared_too_large":
    "{file} quá dài: dù đã nén thành giọng nói, nó vẫn lớn hơn 300 MB, mức tối đa mà Note Service nhận.",
  "failure.docx_expired": "Liên kết tài liệu Word đã hết hạn trước khi tôi kịp tải về.",
  "failure.link_refused":
    "Note Service gửi một liên kết tới địa chỉ mà tôi không được phép mở (chỉ cho phép liên kết https công khai), nên tôi đã dừng lại.",
  "failure.dialog_too_large":
    "Bản chép lời mà Note Service trả về lớn hơn {detail} MB, nên tôi đã ngừng đọc.",
  "failure.dialog_too_large.plain":
    "Bản chép lời mà Note Service trả về quá lớn, nên tôi đã ngừng đọc.",
  "failure.docx_too_large":
    "Tài liệu Word mà Note Service trả về lớn hơn {detail} MB, nên tôi không đăng nó.",
  "failure.docx_too_large.plain":
    "Tài liệu Word mà Note Service trả về quá lớn, nên tôi không đăng nó.",
  "failure.internal": "Đã có lỗi ở phía tôi.",
};

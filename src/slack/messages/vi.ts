import type { Catalog } from "./en.ts";
import { viReview } from "./vi-review.ts";
import { viThread } from "./vi-thread.ts";
import { viWaysIn } from "./vi-ways-in.ts";
import { viWorkflow } from "./vi-workflow.ts";

/**
 * Typed as `Catalog` so a missing or extra key does not compile; the tests compare placeholders.
 */
export const vi: Catalog = {
  ...viThread,
  ...viReview,
  ...viWaysIn,
  ...viWorkflow,
  "refusal.unsupported_format":
    "{file} không phải bản ghi âm tôi dùng được. Hãy tải lên một trong các định dạng: {formats}.",
  "refusal.too_large": "{file} lớn hơn 300 MB, mức tối đa mà Note Service nhận.",
  "refusal.too_large_to_prepare": "{file} lớn hơn 1 GB, mức tối đa Slack cho phép tôi nhận.",
  "refusal.needs_ffmpeg":
    "Tôi không thể chuyển đổi {file} vì nơi tôi chạy chưa cài FFmpeg (quản trị viên có thể cài), nên hãy tải lên một trong các định dạng: {formats}.",
  "refusal.too_large_needs_ffmpeg":
    "{file} lớn hơn 300 MB, mức tối đa mà Note Service nhận, và tôi không thể thu nhỏ nó vì nơi tôi chạy chưa cài FFmpeg (quản trị viên có thể cài).",
  "refusal.empty": "{file} trống.",
  "refusal.unreadable":
    "Tôi không đọc được {file}: Slack không cho tôi xem tệp này (chia sẻ từ tổ chức khác, bị ẩn do giới hạn tệp của workspace, hoặc đã bị xóa). Hãy tải tệp về rồi tải lên lại tại đây, hoặc gửi qua /meeting-notes.",
  "refusal.unnamed": "tệp được chia sẻ ở đây",
  "refusal.more": "…và {count} tệp khác.",
  "template.unreadable":
    "Tôi không đọc được mẫu Word đó, nên biên bản dùng mẫu hiện tại. Hãy tải lên tệp .docx không quá 10 MB.",
  "new_notes.parent": "Biên bản cuộc họp cho {file}, do {user} yêu cầu.",
  "new_notes.file_unreadable": "Tôi không đọc được bản ghi âm đó từ Slack. Hãy thử tải lên lại.",
  "new_notes.not_in_channel": "Tôi chưa ở trong kênh đó. Hãy mời tôi vào, hoặc chọn kênh khác.",

  "button.cancel": "Hủy",
  "button.name_speakers": "Đặt tên người nói",
  "button.skip": "Bỏ qua",
  "button.retry": "Thử lại",
  "button.regenerate": "Tạo lại",
  "button.open_thread": "Mở luồng",
  "confirm.cancel.title": "Hủy biên bản này?",
  "confirm.cancel.text": "Bản ghi âm sẽ ngừng được xử lý. Bạn có thể tải lên lại sau.",
  "confirm.cancel.yes": "Hủy biên bản",
  "confirm.cancel.no": "Tiếp tục",

  "modal.speakers.title": "Đặt tên người nói",
  "modal.regenerate.title": "Tạo lại biên bản",
  "modal.new_notes.title": "Biên bản cuộc họp mới",
  "modal.settings.title": "Cài đặt kênh",
  "modal.speakers.submit": "Viết biên bản",
  "modal.regenerate.submit": "Tạo lại",
  "modal.new_notes.submit": "Bắt đầu",
  "modal.settings.submit": "Lưu",
  "modal.close": "Hủy",

  "speakers.intro":
    "Với mỗi người nói, hãy chọn một thành viên Slack hoặc nhập tên. Các trích dẫn giúp bạn nhận ra họ.",
  "speakers.label": "Người nói {number}",
  "speakers.share": "{speaker} · {percent}% thời lượng nói",
  "speakers.brief":
    "Chỉ nói {seconds} giây: có thể là cùng một người với người nói khác. Để trống nếu không chắc.",
  "speakers.optional_hint":
    "Để trống một người nói để giữ nhãn trung lập (Người nói 3). Hai người nói có thể là cùng một người.",
  "speakers.no_quotes": "Không có trích dẫn để hiển thị.",
  "speakers.user_label": "Thành viên Slack",
  "speakers.user_placeholder": "Chọn thành viên",
  "speakers.name_label": "Hoặc nhập tên",
  "speakers.name_placeholder": "Tên hiển thị trong biên bản",
  "speakers.gender_label": "Giới tính",
  "speakers.gender_hint": "Không bắt buộc. Giúp biên bản xưng hô đúng.",
  "speakers.gender_placeholder": "Không xác định",
  "gender.male": "Nam (anh/ông)",
  "gender.female": "Nữ (chị/bà)",
  "regenerate.context_label": "Bối cảnh",
  "regenerate.context_hint":
    "Chương trình họp, thuật ngữ hoặc các quyết định cần chú ý. Để trống để giữ bối cảnh hiện tại.",
  "regenerate.template_label": "Mẫu Word (DOCX)",
  "regenerate.template_hint": "Không bắt buộc. Để trống để giữ mẫu hiện tại.",

  "validation.name_too_long": "Tên không được dài quá {max} ký tự.",
  "validation.control_chars": "Hãy xóa các ký tự đặc biệt (ký tự điều khiển) khỏi nội dung này.",
  "validation.recording_required": "Hãy tải lên một bản ghi âm hoặc chọn một bản gần đây.",
  "validation.recording_both":
    "Chỉ chọn một: bản ghi âm tải lên hoặc bản gần đây, không phải cả hai.",
  "validation.extra_name_too_long": "“{name}” dài quá {max} ký tự.",
  "validation.language": "Hãy chọn một ngôn ngữ trong danh sách.",
  "validation.unreadable": "Không đọc được biểu mẫu này. Hãy đóng lại và thử lần nữa.",

  "new_notes.recording_label": "Bản ghi âm",
  "new_notes.recording_hint":
    "Tệp thêm ở đây tối đa 10 MB. Bản ghi âm lớn hơn, hãy tải thẳng lên kênh.",
  "new_notes.recent_label": "Hoặc một bản ghi âm gần đây trong kênh",
  "new_notes.recent_placeholder": "Chọn bản ghi âm",
  "new_notes.participants_label": "Người tham dự",
  "new_notes.participants_hint": "Tên thật của họ giúp phân biệt người nói.",
  "new_notes.participants_placeholder": "Chọn thành viên",
  "new_notes.extra_names_label": "Người tham dự khác",
  "new_notes.extra_names_hint":
    "Những người không dùng Slack: mỗi dòng một tên, hoặc ngăn cách bằng dấu phẩy.",
  "new_notes.context_label": "Chương trình họp hoặc thuật ngữ",
  "new_notes.context_hint": "Giúp nhận đúng tên, thuật ngữ và trọng tâm của biên bản.",
  "new_notes.language_label": "Ngôn ngữ",
  "new_notes.template_label": "Mẫu Word (DOCX)",
  "new_notes.template_hint": "Không bắt buộc. Nếu để trống, Note Service dùng mẫu riêng của mình.",
  "new_notes.destination_label": "Đăng biên bản vào",
  "language.auto": "Tự động nhận diện",

  "settings.intro": "Thiết lập mặc định cho các bản ghi âm trong {channel}.",
  "settings.auto_label": "Tự động phiên âm tệp tải lên",
  "settings.auto_on": "Bật: mọi bản ghi âm tải lên đây đều có biên bản",
  "settings.auto_off": "Tắt: chỉ các bản ghi âm gửi qua /meeting-notes",
  "settings.language_label": "Ngôn ngữ",
  "settings.context_label": "Bối cảnh",
  "settings.context_hint":
    "Chương trình họp, thuật ngữ hoặc tên thường gặp trong các cuộc họp của kênh.",
  "settings.template_label": "Mẫu Word (DOCX)",
  "settings.delivery_label": "Ngoài các tin nhắn trong luồng và tài liệu Word",
  "settings.delivery_hint":
    "Chỉ nhắc đến những người được chọn là thành viên Slack trong Đặt tên người nói.",
  "settings.delivery_canvas": "Đưa biên bản vào một canvas mà kênh có thể đọc",
  "settings.delivery_transcript": "Tải lên bản ghi lời nói kèm tên người nói (.txt và .vtt)",
  "settings.delivery_mentions": "Nhắc đến những người được nêu tên trong biên bản",
  "settings.template_hint_none":
    "Không bắt buộc. Nếu để trống, Note Service dùng mẫu riêng của mình.",
  "settings.template_hint_set": "Kênh đã có mẫu. Tải lên mẫu mới để thay thế.",
  "settings.template_clear_label": "Mẫu hiện tại",
  "settings.template_clear": "Ngừng dùng mẫu hiện tại",
  "settings.saved": "Đã lưu cài đặt cho kênh này.",

  "help.intro": "Biên bản cuộc họp từ bản ghi âm của bạn, ngay trong Slack.",
  "help.upload.prepared":
    "Tải một bản ghi âm lên kênh có tôi, hoặc gửi cho tôi trong tin nhắn trực tiếp, tôi sẽ trả lời trong luồng của nó: mọi tệp âm thanh hoặc video tối đa 1 GB (video Meet hay Teams dài một giờ, tệp .mov của iPhone, bản quay màn hình .mkv…).",
  "help.upload.as_is":
    "Tải một bản ghi âm ({formats}, tối đa 300 MB) lên kênh có tôi, hoặc gửi cho tôi trong tin nhắn trực tiếp, tôi sẽ trả lời trong luồng của nó.",
  "help.open": "mở biểu mẫu để tạo biên bản từ một bản ghi âm",
  "help.help": "xem hướng dẫn này",
  "help.status": "liệt kê các biên bản trong kênh này",
  "help.settings": "đổi thiết lập mặc định của kênh (ngôn ngữ, bối cảnh, mẫu)",
  "help.cancel": "hủy tác vụ đang chạy gần nhất trong kênh này",
  "command.unknown": "Tôi không biết lệnh “{command}”.",
  "command.not_found": "Tôi không tìm thấy tác vụ đó nữa. Có thể nó đã hết hạn.",
  "command.wrong_stage.names": "Tác vụ đó không còn chờ đặt tên nữa.",
  "command.wrong_stage.cancel": "Tác vụ đó đã kết thúc.",
  "command.wrong_stage.retry": "Tác vụ đó không thể thử lại nữa.",
  "command.wrong_stage.regenerate": "Chỉ có thể tạo lại khi biên bản đã sẵn sàng.",
  "command.cooldown": "Biên bản này vừa được tạo lại. Hãy thử lại sau {time}.",
  "command.cancel.done": "Đã hủy biên bản của {file}.",
  "command.cancel.none": "Không có tác vụ nào đang chạy để hủy trong kênh này.",
  "channel_status.header": "Biên bản cuộc họp trong kênh này",
  "channel_status.empty": "Kênh này chưa có biên bản nào. Hãy tải một bản ghi âm lên để bắt đầu.",
  "channel_status.more": "…và {count} biên bản cũ hơn",

  // Ai được làm gì: nói với người bị từ chối.
  "permission.starter_or_admin.cancel":
    "Chỉ người tạo biên bản này hoặc quản trị viên workspace mới có thể hủy, và chỉ khi đang ở trong kênh của biên bản.",
  "permission.starter_or_admin.regenerate":
    "Chỉ người tạo biên bản này hoặc quản trị viên workspace mới có thể tạo lại, và chỉ khi đang ở trong kênh của biên bản.",
  "permission.starter_or_member.names":
    "Chỉ người tạo biên bản này hoặc thành viên (không phải khách) của kênh của biên bản mới có thể đặt tên người nói, và chỉ khi đang ở trong kênh đó.",
  "permission.starter_or_member.skip":
    "Chỉ người tạo biên bản này hoặc thành viên (không phải khách) của kênh của biên bản mới có thể bỏ qua bước đặt tên, và chỉ khi đang ở trong kênh đó.",
  "permission.starter_or_member.retry":
    "Chỉ người tạo biên bản này hoặc thành viên (không phải khách) của kênh của biên bản mới có thể thử lại, và chỉ khi đang ở trong kênh đó.",
  "permission.channel_member":
    "Chỉ thành viên (không phải khách) của kênh này mới có thể đổi cài đặt biên bản của kênh.",
  "permission.cannot_tell":
    "Slack chưa xác nhận được rằng bạn có quyền làm việc này, nên không có gì thay đổi.",
  "permission.not_this_job": "Nút đó không thuộc về biên bản này.",
  "permission.destination.bot_not_in":
    "Hãy mời tôi vào cuộc trò chuyện đó trước (/invite @Meeting Notes), hoặc chọn nơi khác.",
  "permission.destination.user_not_in": "Hãy chọn một cuộc trò chuyện mà bạn tham gia.",
  "permission.destination.unknown":
    "Tôi không kiểm tra được cuộc trò chuyện đó. Hãy thử lại hoặc chọn nơi khác.",
  "permission.recording":
    "Hãy chọn bản ghi âm của chính bạn, hoặc bản được chia sẻ trong cuộc trò chuyện bạn tham gia.",
  "permission.recent": "Hãy chọn một bản ghi âm trong danh sách.",
  "permission.template":
    "Hãy chọn mẫu Word do bạn tải lên, hoặc mẫu được chia sẻ trong cuộc trò chuyện bạn tham gia.",
  "settings.announced": "{user} đã đổi cài đặt biên bản của kênh này: {changes}.",
  "settings.change.auto_on": "bản ghi âm tải lên đây được tự động làm biên bản",
  "settings.change.auto_off": "bản ghi âm tải lên đây không còn được tự động làm biên bản",
  "settings.change.canvas_on": "biên bản được đưa vào một canvas",
  "settings.change.canvas_off": "không tạo canvas cho biên bản",
  "settings.change.transcript_on": "bản ghi lời nói được tải lên cùng biên bản",
  "settings.change.transcript_off": "không tải lên bản ghi lời nói",
  "settings.change.mentions_on": "những người được nêu tên trong biên bản sẽ được nhắc đến",
  "settings.change.mentions_off": "không nhắc đến ai trong biên bản",
  "settings.change.language": "ngôn ngữ {language}",
  "settings.change.language_auto": "tự nhận diện ngôn ngữ",
  "settings.change.context_set": "bối cảnh mới",
  "settings.change.context_cleared": "không có bối cảnh",
  "settings.change.template_set": "mẫu Word mới",
  "settings.change.template_cleared": "mẫu Word riêng của Note Service",

  "home.header": "Biên bản cuộc họp của bạn",
  "home.intro": "Các bản ghi âm bạn đã tải lên hoặc gửi qua /meeting-notes, mới nhất trước.",
  "home.empty":
    "Chưa có biên bản nào. Hãy tải một bản ghi âm lên kênh có tôi, hoặc gõ /meeting-notes trong bất kỳ kênh nào.",
  "home.more": "Đang hiển thị {shown} biên bản mới nhất trong số {count}.",
  "home.started": "Bắt đầu {when}",
  "home.store_reset":
    ":warning: Bộ nhớ của bot đã bị đặt lại {when}, và biên bản của {files} đã bị mất; hãy tải chúng lên lại.",

  "time.just_now": "vừa xong",
  "time.minutes_ago.one": "1 phút trước",
  "time.minutes_ago.other": "{count} phút trước",
  "time.hours_ago.one": "1 giờ trước",
  "time.hours_ago.other": "{count} giờ trước",
  "time.days_ago.one": "1 ngày trước",
  "time.days_ago.other": "{count} ngày trước",

  "note.part": "Phần {index}/{total}",
  "note.fallback": "Biên bản cuộc họp",
  "note.fallback_part": "Biên bản cuộc họp, phần {index}/{total}",

  "notice.loading": "Chờ một chút…",
  "notice.open_failed": "Slack không cho tôi mở biểu mẫu kịp lúc. Hãy thử lại.",
  "notice.failed": "Đã có lỗi ở phía tôi. Hãy đóng cửa sổ này và thử lại.",
  "notice.working":
    "Đang xử lý: lúc này Slack phản hồi chậm. Bạn có thể đóng cửa sổ này, tôi vẫn sẽ làm xong và báo cho bạn kết quả.",
  "notice.not_done": "Tôi không làm được việc đó:",
  "store.unavailable":
    "Lúc này tôi chưa làm được việc đó: bộ lưu trữ của tôi không phản hồi. Hãy thử lại sau một phút.",
  "store.upload_waiting":
    "Tôi đã nhận {file}: tôi sẽ bắt đầu ngay khi bộ lưu trữ của tôi hoạt động trở lại.",
  "store.upload_lost":
    "Tôi không nhận được {file}: bộ lưu trữ của tôi đang không hoạt động. Hãy chia sẻ lại sau vài phút.",
  "new_notes.pending":
    "Biên bản sẽ bắt đầu trong một luồng ở {channel} ngay khi bộ lưu trữ của tôi hoạt động trở lại.",
  "new_notes.started": "Biên bản đang được chuẩn bị: sẽ xuất hiện trong một luồng ở {channel}.",
  "new_notes.already": "Biên bản cho bản ghi âm này đang được làm trong {channel}.",
  "new_notes.already_thread":
    "Biên bản cho bản ghi âm này đang được làm trong <{url}|một luồng> ở {channel}.",
  "speakers.saved": "Cảm ơn bạn! Biên bản đang được viết với những tên này.",
  "speakers.regenerating": "Một phiên bản mới của biên bản đang được viết.",
  "speakers.page":
    "Trang {page}/{pages}: người nói {first} đến {last} trong số {total}, ai nói nhiều nhất trước. Những gì bạn nhập được giữ lại khi chuyển trang.",
  "modal.speakers.next": "Tiếp",
  "button.previous_page": "Trang trước",
};
